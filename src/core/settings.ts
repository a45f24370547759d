/**
 * Duration settings read from the environment (SVC_STOP_GRACE_SECONDS, SVC_SAMPLE_INTERVAL_SECONDS):
 * seconds in, milliseconds out, a clear error naming the variable for anything else.
 */
import { SvcError } from './errors.ts';
import { DEFAULT_SAMPLE_INTERVAL_MS } from './metrics/sampler.ts';

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

/**
 * How an engine is stopped and sampled, wherever svc supervises one (the daemon, the gateway's
 * local nodes): docs/design.md D10's 10 s grace before SIGKILL and spec §8's sampler tick, each
 * settable from the environment for tests.
 */
export function engineTimings(env: Readonly<Record<string, string | undefined>>): {
  readonly stopGraceMs: number;
  readonly sampleIntervalMs: number;
} {
  return {
    stopGraceMs: secondsSetting('SVC_STOP_GRACE_SECONDS', env['SVC_STOP_GRACE_SECONDS'], 10_000, 0),
    sampleIntervalMs: secondsSetting(
      'SVC_SAMPLE_INTERVAL_SECONDS',
      env['SVC_SAMPLE_INTERVAL_SECONDS'],
      DEFAULT_SAMPLE_INTERVAL_MS,
      100,
    ),
  };
}
