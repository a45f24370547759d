/** The fan-out bound: never more than `concurrency` calls at once; request calls go first. */
import { describe, expect, it } from 'vitest';

import { CallLimiter, type LimitedCall, mapBounded } from './call-limiter.ts';

function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('CallLimiter', () => {
  it('runs at most `concurrency` calls at once, the rest in order as slots free', async () => {
    const limiter = new CallLimiter(3);
    const started: number[] = [];
    const gates = Array.from({ length: 10 }, () => gate());
    let peak = 0;
    let running = 0;
    gates.forEach((entry, index) => {
      const call: LimitedCall = {
        start: async () => {
          started.push(index);
          running += 1;
          peak = Math.max(peak, running);
          await entry.promise;
          running -= 1;
        },
      };
      limiter.submit(call, false);
    });
    expect(started).toEqual([0, 1, 2]);
    for (const entry of gates) {
      entry.open();
      await tick();
    }
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(peak).toBe(3);
  });

  it('starts an urgent call, or a background one promoted to urgent, before queued background calls', async () => {
    const limiter = new CallLimiter(1);
    const started: string[] = [];
    const blocker = gate();
    const calls = new Map<string, LimitedCall>();
    for (const name of ['blocker', 'b1', 'b2', 'b3']) {
      const call: LimitedCall = {
        start: async () => {
          started.push(name);
          if (name === 'blocker') {
            await blocker.promise;
          }
        },
      };
      calls.set(name, call);
      limiter.submit(call, false);
    }
    limiter.submit({ start: () => Promise.resolve(void started.push('u1')) }, true);
    const b3 = calls.get('b3');
    if (b3 !== undefined) {
      limiter.submit(b3, true);
    }
    blocker.open();
    for (let index = 0; index < 10; index += 1) {
      await tick();
    }
    // b3 runs once, from its urgent place; its old background place is skipped.
    expect(started).toEqual(['blocker', 'u1', 'b3', 'b1', 'b2']);
  });
});

describe('mapBounded', () => {
  it('keeps order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapBounded([5, 1, 4, 2, 3, 0, 6], 3, async (value) => {
      running += 1;
      peak = Math.max(peak, running);
      for (let wait = 0; wait < value; wait += 1) {
        await tick();
      }
      running -= 1;
      return value * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30, 0, 60]);
    expect(peak).toBe(3);
  });
});
