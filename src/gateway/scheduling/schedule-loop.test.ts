/**
 * The loop at the edge (schedule-loop.ts) over the real scheduler, with a hand-driven clock and
 * timers: a request is placed at once or settled later by the action that answers it, a caller
 * that hangs up leaves the queue, a wake's end and a stop's end are fed back, and the one timer
 * follows the scheduler's next deadline.
 */
import { describe, expect, it } from 'vitest';

import { Scheduler } from '../../core/fleet/scheduling/scheduler.ts';
import { schedulerSettings } from '../../core/fleet/scheduling/settings.ts';
import type { NodeView } from '../../core/fleet/scheduling/types.ts';
import { errorBody } from '../../core/http/gateway-error.ts';
import {
  type Admission,
  type DispatchAction,
  HungUp,
  Refused,
  type StartAction,
  StartRefused,
  type StopAction,
  type WakeAction,
} from './loop-contract.ts';
import { startRefusalError } from './rejection.ts';
import { AWAITED_POLL_MS, ScheduleLoop } from './schedule-loop.ts';

const MODEL = 'tiny';

/** Timers run by hand: `advance` fires what falls due, in order. */
function handTimers() {
  let now = 1_000_000;
  let timers: { at: number; run: () => void; live: boolean }[] = [];
  return {
    now: () => now,
    after(ms: number, run: () => void) {
      const timer = { at: now + ms, run, live: true };
      timers.push(timer);
      return () => {
        timer.live = false;
      };
    },
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = timers
          .filter((timer) => timer.live && timer.at <= until)
          .sort((a, b) => a.at - b.at)[0];
        if (due === undefined) {
          break;
        }
        now = due.at;
        due.live = false;
        due.run();
      }
      now = until;
      timers = timers.filter((timer) => timer.live);
    },
    pending: () => timers.filter((timer) => timer.live).length,
  };
}

function view(name: string, extra: Partial<NodeView> = {}, at = 1_000_000): NodeView {
  return { name, observedAt: at, state: 'running', ready: true, serves: [MODEL], ...extra };
}

function harness(options: Parameters<typeof schedulerSettings>[0]) {
  const timers = handTimers();
  const wakes: { action: WakeAction; done: (view: NodeView) => void; fail: (e: Error) => void }[] =
    [];
  const stops: StopAction[] = [];
  const refreshed: string[] = [];
  const loop = new ScheduleLoop(
    new Scheduler(schedulerSettings(options)),
    {
      wake: (action) =>
        new Promise<NodeView>((resolve, reject) => {
          wakes.push({ action, done: resolve, fail: reject });
        }),
      stop: (action) => {
        stops.push(action);
        return Promise.resolve(true);
      },
      // The node's record as a fresh read finds it: its last activity, the one its view showed.
      read: () => Promise.resolve({ askedAt: timers.now(), lastActiveAt: 1_000_000 }),
      refresh: (node) => refreshed.push(node),
    },
    timers,
  );
  return { loop, timers, wakes, stops, refreshed };
}

/** A promise's outcome so far. */
function track(admission: Admission) {
  const state: { dispatch?: DispatchAction; error?: unknown } = {};
  if ('placed' in admission) {
    state.dispatch = admission.placed;
  } else {
    admission.waiting.then(
      (dispatch) => {
        state.dispatch = dispatch;
      },
      (error: unknown) => {
        state.error = error;
      },
    );
  }
  return state;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

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
    expect(h.loop.admitIfPlaced({ model: MODEL, streaming: false })).toBeUndefined();
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
