/**
 * The schedule loop (src/gateway/scheduling/schedule-loop.ts) over the real scheduler, with a
 * hand-driven clock and timers and recorded effects: what its unit tests share.
 */
import { Scheduler } from '../../../src/core/fleet/scheduling/scheduler.ts';
import { schedulerSettings } from '../../../src/core/fleet/scheduling/settings.ts';
import type { NodeView } from '../../../src/core/fleet/scheduling/types.ts';
import type {
  Admission,
  DispatchAction,
  StopAction,
  WakeAction,
} from '../../../src/gateway/scheduling/loop-contract.ts';
import { ScheduleLoop } from '../../../src/gateway/scheduling/schedule-loop.ts';

export const MODEL = 'tiny';

/** Timers run by hand: `advance` fires what falls due, in order. */
export function handTimers() {
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

export function view(name: string, extra: Partial<NodeView> = {}, at = 1_000_000): NodeView {
  return { name, observedAt: at, state: 'running', ready: true, serves: [MODEL], ...extra };
}

export function harness(options: Parameters<typeof schedulerSettings>[0]) {
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
export function track(admission: Admission) {
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

export const flush = () => new Promise((resolve) => setImmediate(resolve));
