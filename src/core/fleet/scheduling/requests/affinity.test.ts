/** The affinity memory stays within its size and forgets the least recently sent key first. */
import { describe, expect, it } from 'vitest';

import { AffinityMemory } from './affinity.ts';

describe('AffinityMemory', () => {
  it('remembers the last node per key and forgets the least recently sent', () => {
    const memory = new AffinityMemory(2);
    memory.remember('k1', 'a');
    memory.remember('k2', 'b');
    memory.remember('k1', 'c');
    memory.remember('k3', 'a');
    expect(memory.size).toBe(2);
    expect(memory.nodeFor('k1')).toBe('c');
    expect(memory.nodeFor('k2')).toBeUndefined();
    expect(memory.nodeFor('k3')).toBe('a');
  });
});
