/** The wait queue: FIFO per model, removal from anywhere, and the longest-waiting model first. */
import { describe, expect, it } from 'vitest';

import { type Waiting, WaitQueue } from './queue.ts';

const entry = (id: number, model: string, enqueuedAt: number): Waiting => ({
  id,
  model,
  enqueuedAt,
  streaming: false,
});

describe('WaitQueue', () => {
  it('keeps each model in arrival order and leaves from anywhere', () => {
    const queue = new WaitQueue();
    [entry(1, 'a', 0), entry(2, 'b', 1), entry(3, 'a', 2), entry(4, 'a', 3)].forEach((e) => {
      queue.add(e);
    });
    expect(queue.position(4)).toBe(3);
    expect(queue.remove(3)?.id).toBe(3);
    expect(queue.position(4)).toBe(2);
    expect(queue.entries('a').map((e) => e.id)).toEqual([1, 4]);
    expect(queue.remove(3)).toBeUndefined();
    expect(queue.counts()).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
    );
    expect(queue.models()).toEqual(['a', 'b']);
    queue.remove(1);
    expect(queue.models()).toEqual(['b', 'a']);
    queue.remove(2);
    expect(queue.models()).toEqual(['a']);
    expect(queue.head('b')).toBeUndefined();
    expect(queue.size).toBe(1);
  });
});
