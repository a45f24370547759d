/**
 * The schedule loop's one timer (schedule-loop.ts): armed for the scheduler's next deadline,
 * refusing a waiting request at its own deadline, and not made afresh per request while the next
 * deadline only moves later.
 */
import { describe, expect, it } from 'vitest';

import {
  flush,
  harness,
  MODEL,
  track,
  view,
} from '../../../test/support/scheduling/schedule-loop-harness.ts';
import type { Admission, Refused } from './loop-contract.ts';
import { AWAITED_POLL_MS } from './schedule-loop.ts';

describe('ScheduleLoop timer', () => {
  it('arms one timer for the next deadline and refuses at it', async () => {
    const h = harness({ nodes: [{ name: 'a' }], queue: { timeoutMs: 5_000 } });
    h.loop.views([view('a', { slots: 1 })]);
    h.loop.admit({ model: MODEL, streaming: false });
    const waiting = track(h.loop.admit({ model: MODEL, streaming: false }));
    h.timers.advance(4_999);
    await flush();
    expect(waiting.error).toBeUndefined();
    h.timers.advance(1);
    await flush();
    expect((waiting.error as Refused).action).toMatchObject({
      reason: 'queue_timeout',
      waitedMs: 5_000,
    });
  });

  it('keeps the timer it armed while the next deadline moves later, and still refuses on time', async () => {
    const h = harness({ nodes: [{ name: 'a' }], queue: { timeoutMs: 5_000 } });
    let made = 0;
    const after = h.timers.after.bind(h.timers);
    h.timers.after = (ms, run) => {
      // The poll of loading nodes has its own period; only deadline timers are counted.
      made += ms === AWAITED_POLL_MS ? 0 : 1;
      return after(ms, run);
    };
    h.loop.views([view('a', { slots: 1 })]);
    let running = h.loop.admit({ model: MODEL, streaming: false });
    const waiting: ReturnType<typeof track>[] = [];
    const admissions: Admission[] = [];
    for (let index = 0; index < 5; index += 1) {
      h.timers.advance(100);
      const admission = h.loop.admit({ model: MODEL, streaming: false });
      admissions.push(admission);
      waiting.push(track(admission));
    }
    // Each end hands the slot on: the queue's head, and so its deadline, moves 100 ms later.
    for (let index = 0; index < 3; index += 1) {
      h.loop.end(running.id);
      running = admissions[index] as Admission;
      await flush();
    }
    expect(waiting.slice(0, 3).every((state) => state.dispatch?.node === 'a')).toBe(true);
    expect(made).toBe(1);
    // The fourth arrived at +400 ms: refused at +5,400 ms, not before; the fifth at +5,500 ms.
    h.timers.advance(5_400 - 500 - 1);
    await flush();
    expect(waiting[3]?.error).toBeUndefined();
    h.timers.advance(1);
    await flush();
    expect((waiting[3]?.error as Refused).action).toMatchObject({ reason: 'queue_timeout' });
    expect(waiting[4]?.error).toBeUndefined();
    h.timers.advance(100);
    await flush();
    expect((waiting[4]?.error as Refused).action).toMatchObject({ reason: 'queue_timeout' });
  });
});
