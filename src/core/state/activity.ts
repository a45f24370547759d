/**
 * The activity rule of spec §3: a sample counts as activity when requests are in flight, or when
 * the engine's cumulative counter moved since the previous sample (so a request that started and
 * finished between two samples still counts). The first sample only sets the baseline. Pure.
 */
import type { TokenStats } from '../contract/schemas.ts';

export function isActivity(sample: TokenStats, previousCounter: number | undefined): boolean {
  if ((sample.running ?? 0) > 0) {
    return true;
  }
  return (
    previousCounter !== undefined &&
    sample.counter !== undefined &&
    sample.counter !== previousCounter
  );
}
