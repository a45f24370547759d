/** The drain wait leaves no listener behind, however many times a stream waits. */
import { EventEmitter } from 'node:events';

import { describe, expect, it } from 'vitest';

import { drainOrClose } from './drain.ts';

describe('drainOrClose', () => {
  it('removes both listeners after each drain, over many waits', async () => {
    const writable = new EventEmitter();
    for (let round = 0; round < 100; round += 1) {
      const waited = drainOrClose(writable);
      writable.emit('drain');
      await waited;
    }
    expect(writable.listenerCount('close')).toBe(0);
    expect(writable.listenerCount('drain')).toBe(0);
  });

  it('resolves on close too, and removes the drain listener', async () => {
    const writable = new EventEmitter();
    const waited = drainOrClose(writable);
    writable.emit('close');
    await waited;
    expect(writable.listenerCount('drain')).toBe(0);
    expect(writable.listenerCount('close')).toBe(0);
  });
});
