/**
 * The start window (spec §3: an exit within it is a failed start, a 400): the engine's exit
 * within it, or 'started' when it ends or the engine already answers its health check. The
 * clock and the timer are passed in, so the window has unit tests with fake time.
 */
import type { Clock } from '../clock.ts';
import type { EngineExit } from './engine-exit.ts';

/** How often an engine that may already answer is asked, within the window. */
export const START_PROBE_MS = 100;

/** The clock and the one-shot timer the engine process runs on. */
export interface EngineTimers {
  /** Milliseconds since the epoch. */
  readonly now: Clock;
  /** Calls `callback` after `ms`; what it returns cancels the call. */
  readonly setTimer: (callback: () => void, ms: number) => () => void;
}

/** `promise`'s value, or 'timeout' after `ms`; the timer is cancelled when the promise wins. */
export function within<T>(
  timers: Pick<EngineTimers, 'setTimer'>,
  promise: Promise<T>,
  ms: number,
): Promise<T | 'timeout'> {
  return new Promise((resolve) => {
    // A pending timer would keep the event loop alive (serve ends when its loop empties).
    const cancel = timers.setTimer(() => {
      resolve('timeout');
    }, ms);
    void promise.then((value) => {
      cancel();
      resolve(value);
    });
  });
}

export async function startWindow(
  timers: EngineTimers,
  exited: Promise<EngineExit>,
  windowMs: number,
  answering: (() => Promise<boolean>) | undefined,
): Promise<EngineExit | 'started'> {
  const deadline = timers.now() + windowMs;
  for (;;) {
    const left = deadline - timers.now();
    const step = answering === undefined ? left : Math.min(left, START_PROBE_MS);
    const outcome = await within(timers, exited, Math.max(0, step));
    if (outcome !== 'timeout') {
      return outcome;
    }
    if (timers.now() >= deadline || (answering !== undefined && (await answering()))) {
      return 'started';
    }
  }
}
