/**
 * Duration settings read from the environment (SVC_STOP_GRACE_SECONDS, SVC_SAMPLE_INTERVAL_SECONDS):
 * seconds in, milliseconds out, a clear error naming the variable for anything else.
 */
import { SvcError } from './errors.ts';

export function secondsSetting(
  name: string,
  value: string | undefined,
  fallbackMs: number,
  minimumMs: number,
): number {
  if (value === undefined || value === '') {
    return fallbackMs;
  }
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds * 1000 < minimumMs) {
    throw new SvcError(
      'ERR_USAGE',
      `${name} "${value}" is not a number of seconds (at least ${minimumMs / 1000})`,
    );
  }
  return seconds * 1000;
}
