/**
 * The wait every test uses: it returns the first value that holds, and at its deadline it throws
 * naming what it waited for and the last value it saw, never returning quietly. Fake time, so
 * the deadline is exact and nothing here sleeps.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { eventually } from './eventually.ts';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

/** A reader that counts 0, 1, 2… one per read. */
function counter(): { read: () => Promise<number>; reads: () => number } {
  let next = 0;
  return {
    read: () => Promise.resolve(next++),
    reads: () => next,
  };
}

describe('eventually', () => {
  it('returns the first value that holds, reading once per interval', async () => {
    const { read, reads } = counter();
    const waiting = eventually(read, (value) => value === 3, 'three', { intervalMs: 100 });
    await vi.advanceTimersByTimeAsync(300);
    await expect(waiting).resolves.toBe(3);
    expect(reads()).toBe(4);
  });

  it('does not wait when the first value already holds', async () => {
    const { read, reads } = counter();
    await expect(eventually(read, () => true, 'anything')).resolves.toBe(0);
    expect(reads()).toBe(1);
  });

  it('throws at its deadline, naming what it waited for and the last value seen', async () => {
    const { read } = counter();
    const waiting = eventually(read, (value) => value < 0, 'a negative count', {
      timeoutMs: 1_000,
      intervalMs: 100,
    });
    const failure = expect(waiting).rejects.toThrow(
      'timed out after 1000 ms waiting for a negative count; the last value seen:\n10',
    );
    await vi.advanceTimersByTimeAsync(1_000);
    await failure;
  });

  it('shows an object as JSON, a string as it is, or as `show` says', async () => {
    const cases: [unknown, ((value: unknown) => string) | undefined, string][] = [
      [{ state: 'idle' }, undefined, '{"state":"idle"}'],
      [new Map([['up', 1]]), undefined, '{"up":1}'],
      [new Set(['a']), undefined, '["a"]'],
      ['row 1\nrow 2', undefined, 'row 1\nrow 2'],
      [undefined, undefined, 'undefined'],
      [{ state: 'idle' }, () => 'custom', 'custom'],
    ];
    for (const [value, show, text] of cases) {
      const waiting = eventually(
        () => Promise.resolve(value),
        () => false,
        'never',
        {
          timeoutMs: 0,
          ...(show === undefined ? {} : { show }),
        },
      );
      await expect(waiting).rejects.toThrow(`the last value seen:\n${text}`);
    }
  });

  it('cuts a very long last value short, saying how long it was', async () => {
    const long = 'x'.repeat(10_000);
    const waiting = eventually(
      () => Promise.resolve(long),
      () => false,
      'never',
      {
        timeoutMs: 0,
      },
    );
    await expect(waiting).rejects.toThrow(`${'x'.repeat(4000)}… (10000 chars)`);
  });

  it('lets an error from the read through at once', async () => {
    const waiting = eventually(
      () => Promise.reject(new Error('boom')),
      () => true,
      'never',
    );
    await expect(waiting).rejects.toThrow('boom');
  });
});
