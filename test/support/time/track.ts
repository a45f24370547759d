/**
 * A promise's outcome so far, without waiting for it: a test on a fake clock moves the clock, then
 * looks, so a broken rule fails the test rather than hanging it.
 */

export interface Tracked<T> {
  value?: T;
  error?: unknown;
  settled: boolean;
}

export function track<T>(promise: Promise<T>): Tracked<T> {
  const state: Tracked<T> = { settled: false };
  promise.then(
    (value) => {
      state.value = value;
      state.settled = true;
    },
    (error: unknown) => {
      state.error = error;
      state.settled = true;
    },
  );
  return state;
}
