/**
 * The loop at the edge (schedule-loop.ts) over the real scheduler, with a hand-driven clock and
 * timers: a request is placed at once or settled later by the action that answers it, a caller
 * that hangs up leaves the queue, a wake's end and a stop's end are fed back, and the one timer
 * follows the scheduler's next deadline (schedule-loop-timers.test.ts).
 */
import { describe, expect, it } from 'vitest';

import {
  flush,
  harness,
  MODEL,
  track,
  view,
} from '../../../test/support/scheduling/schedule-loop-harness.ts';
import { errorBody } from '../../core/http/gateway-error.ts';
import { HungUp, Refused, type StartAction, StartRefused } from './loop-contract.ts';
import { startRefusalError } from './rejection.ts';

/** Nodes a and b in a group of one with no residency; b stopped, serving another model. */
function groupOfOne() {
  const nodes = [
    { name: 'a', group: 'gpu' },
    { name: 'b', group: 'gpu' },
  ];
  const h = harness({ nodes, groups: new Map([['gpu', { max: 1, minResidencyMs: 0 }]]) });
  const stoppedB = { state: 'stopped' as const, ready: false, serves: [], wakes: ['other'] };
  return { h, stoppedB };
}

describe('ScheduleLoop', () => {
  it('places at once while a slot is free, then queues, and hands the freed slot on', async () => {
    const h = harness({ nodes: [{ name: 'a' }], queue: { max: 1 } });
    h.loop.views([view('a', { slots: 1 })]);
    const first = h.loop.admit({ model: MODEL, streaming: false });
    expect('placed' in first && first.placed.node).toBe('a');
    const second = h.loop.admit({ model: MODEL, streaming: false });
    expect('waiting' in second).toBe(true);
    const waiting = track(second);
    // The queue holds one: the third is refused at once with a Retry-After.
    let refused: unknown;
    try {
      h.loop.admit({ model: MODEL, streaming: false });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(Refused);
    expect((refused as Refused).action).toMatchObject({ reason: 'queue_full' });
    expect((refused as Refused).action.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    h.timers.advance(250);
    h.loop.end(first.id);
    await flush();
    expect(waiting.dispatch).toMatchObject({ node: 'a', waitedMs: 250 });
  });

  it('runs no step for a fast-path arrival behind others waiting for its model', () => {
    const h = harness({ nodes: [{ name: 'a' }] });
    h.loop.views([view('a', { slots: 1 })]);
    h.loop.admit({ model: MODEL, streaming: false });
    h.loop.admit({ model: MODEL, streaming: false });
    let steps = 0;
    const step = h.loop.scheduler.step.bind(h.loop.scheduler);
    h.loop.scheduler.step = (event, now) => {
      steps += 1;
      return step(event, now);
    };
    // docs/design.md D25: first in, first out, so it cannot be placed before the one waiting.
    expect(h.loop.admitNow({ model: MODEL, streaming: false }, 'unlessPlaced')).toBeUndefined();
    expect(steps).toBe(0);
    expect(h.loop.scheduler.waitingCount(MODEL)).toBe(1);
  });

  it('takes a caller that hangs up out of the queue at once', async () => {
    const h = harness({ nodes: [{ name: 'a' }] });
    h.loop.views([view('a', { slots: 1 })]);
    const running = h.loop.admit({ model: MODEL, streaming: false });
    const gone = h.loop.admit({ model: MODEL, streaming: false });
    const next = h.loop.admit({ model: MODEL, streaming: false });
    const goneState = track(gone);
    const nextState = track(next);
    h.loop.end(gone.id);
    h.loop.end(running.id);
    await flush();
    expect(goneState.error).toBeInstanceOf(HungUp);
    expect(nextState.dispatch?.node).toBe('a');
    expect(h.loop.scheduler.waitingCount()).toBe(0);
  });

  it('ends every waiting request with the reason when it closes, and places none after', async () => {
    const h = harness({ nodes: [{ name: 'a' }] });
    h.loop.views([view('a', { slots: 1 })]);
    h.loop.admit({ model: MODEL, streaming: false });
    const waiting = track(h.loop.admit({ model: MODEL, streaming: true }));
    const reason = new Error('the gateway is shutting down');
    h.loop.close(reason);
    await flush();
    expect(waiting.error).toBe(reason);
    expect(h.loop.scheduler.waitingCount()).toBe(0);
  });

  it('wakes a node for a request nothing serves, and dispatches when the wake ends', async () => {
    const h = harness({ nodes: [{ name: 'a' }] });
    h.loop.views([view('a', { state: 'stopped', ready: false, serves: [], wakes: [MODEL] })]);
    const waiting = track(h.loop.admit({ model: MODEL, streaming: true }));
    expect(h.wakes.map((wake) => wake.action)).toEqual([
      { kind: 'wake', node: 'a', model: MODEL, cause: 'demand' },
    ]);
    h.timers.advance(1_000);
    h.wakes[0]?.done(view('a', {}, h.timers.now()));
    await flush();
    expect(waiting.dispatch).toMatchObject({ node: 'a', waitedMs: 1_000 });
  });

  it('refuses the waiting when every wake fails, with what each node said', async () => {
    const h = harness({ nodes: [{ name: 'a' }] });
    h.loop.views([view('a', { state: 'stopped', ready: false, serves: [], wakes: [MODEL] })]);
    const waiting = track(h.loop.admit({ model: MODEL, streaming: false }));
    h.wakes[0]?.fail(new Error('start refused: no GPU'));
    await flush();
    await flush();
    expect(waiting.error).toBeInstanceOf(Refused);
    expect((waiting.error as Refused).action).toMatchObject({
      reason: 'wake_failed',
      detail: { failures: [{ node: 'a', detail: 'start refused: no GPU' }] },
    });
  });

  it('asks a loading node often while requests wait on it', () => {
    const h = harness({ nodes: [{ name: 'a' }] });
    h.loop.views([view('a', { ready: false })]);
    h.loop.admit({ model: MODEL, streaming: false });
    h.timers.advance(1_000);
    expect(h.refreshed.length).toBeGreaterThanOrEqual(3);
    expect(new Set(h.refreshed)).toEqual(new Set(['a']));
  });

  it('stops an idle node when its time comes and hears the stop end', async () => {
    const h = harness({ nodes: [{ name: 'a', idleStopMs: 60_000 }] });
    h.loop.views([view('a', { lastActiveAt: 1_000_000, runningSince: 1_000_000 })]);
    h.timers.advance(59_999);
    expect(h.stops).toEqual([]);
    h.timers.advance(1);
    // Decided on a fresh read of its activity asked at its time (idle-stop.ts), once it answers.
    await flush();
    expect(h.stops).toEqual([{ kind: 'stop', node: 'a', reason: 'idle' }]);
    await flush();
    expect(h.loop.scheduler.idleStopAt('a')).toBeUndefined();
  });

  it("an operator's start into a full group swaps the idle member out, then goes ahead", async () => {
    const { h, stoppedB } = groupOfOne();
    h.loop.views([view('a', { runningSince: 0, wakes: [MODEL] }), view('b', stoppedB)]);
    let allowed: StartAction | undefined;
    void h.loop.start('b', false).then((action) => {
      allowed = action;
    });
    expect(h.stops).toEqual([{ kind: 'stop', node: 'a', reason: 'swap', group: 'gpu' }]);
    await flush();
    expect(allowed).toEqual({ kind: 'start', id: 1, node: 'b' });
    // b holds the group from the go-ahead until its start is reported.
    const busy = h.loop.admit({ model: MODEL, streaming: false });
    expect('waiting' in busy).toBe(true);
  });

  it("refuses an operator's start while the member holding the group is busy: 409 group_busy", async () => {
    const { h, stoppedB } = groupOfOne();
    h.loop.views([view('a', { runningSince: 0, slots: 2 }), view('b', stoppedB)]);
    h.loop.admit({ model: MODEL, streaming: true });
    const refused = await h.loop.start('b', false).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StartRefused);
    const reply = startRefusalError((refused as StartRefused).action, 1);
    expect(reply.status).toBe(409);
    expect(JSON.parse(errorBody(reply))).toEqual({
      error: {
        message:
          'cannot start "b": its group "gpu" runs at most 1 member and is held by "a": it has 1 request in flight and 0 queued; start it once they end, or start it anyway with ?force=true (svc fleet start --force), which stops "a"',
        type: 'invalid_request_error',
        code: 'group_busy',
      },
    });
    expect(h.stops).toEqual([]);
    // Forced, the busy member is stopped anyway.
    void h.loop.start('b', true);
    expect(h.stops).toEqual([
      { kind: 'stop', node: 'a', reason: 'swap', group: 'gpu', forced: true },
    ]);
  });
});
