import { runInNewContext } from 'node:vm';

import { describe, expect, it } from 'vitest';

import { SETTLE_HEAP_FROM_NODES, settleHeap } from './settle-heap.ts';

describe('settleHeap', () => {
  // One process-wide flag: the small case must run first, so both live in one test.
  it('collects only after a large fleet file, through the exposed collector', () => {
    const exposed = (): unknown => runInNewContext('typeof gc');
    const before = exposed();
    settleHeap(SETTLE_HEAP_FROM_NODES - 1);
    expect(exposed()).toBe(before);
    settleHeap(SETTLE_HEAP_FROM_NODES);
    expect(exposed()).toBe('function');
  });
});
