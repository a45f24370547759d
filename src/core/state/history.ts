/**
 * Retained host readings for metrics `history` (spec §2.4, §2.5, §8): one sample per sampler tick
 * while an engine runs, oldest first, at most the last 10 minutes, and never more than fits the
 * 4 KB relay budget together with the current reading. Pure: add returns a new list.
 */
import type { Stats } from '../contract/schemas.ts';

export type HistorySample = NonNullable<Stats['history']>[number];

export const HISTORY_WINDOW_SECONDS = 10 * 60;
/** spec §8: history rides a relay whose output is cut at 4 KB, alongside the current reading. */
export const RELAY_BUDGET_BYTES = 4096;

/** One decimal is plenty for a percentage and keeps samples short. */
export function percent(part: number, whole: number): number {
  return Math.round((part / whole) * 1000) / 10;
}

/** Bytes the reading takes in the metrics reply (`"gpus":…,"cpu":…,"memory":…` plus `"history":[]`). */
function readingBytes(current: Pick<Stats, 'gpus' | 'cpu' | 'memory'>): number {
  return JSON.stringify({ ...current, history: [] }).length;
}

/**
 * Appends `sample`, then drops samples older than the window (relative to the newest) and the
 * oldest ones until history and the current reading fit the relay budget.
 */
export function addSample(
  history: readonly HistorySample[],
  sample: HistorySample,
  current: Pick<Stats, 'gpus' | 'cpu' | 'memory'>,
): HistorySample[] {
  const kept = [...history, sample].filter((entry) => sample.t - entry.t <= HISTORY_WINDOW_SECONDS);
  const budget = RELAY_BUDGET_BYTES - readingBytes(current);
  let size = JSON.stringify(kept).length;
  while (kept.length > 0 && size > budget) {
    const dropped = kept.shift();
    size -= JSON.stringify(dropped).length + (kept.length > 0 ? 1 : 0);
  }
  return kept;
}
