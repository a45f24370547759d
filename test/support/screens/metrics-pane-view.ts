/**
 * The metrics pane's inputs as its tests build them: a fixed `now`, a view of some Stats, a
 * running engine with every reading the pane shows, and the line a series is drawn on.
 */
import type { Stats } from '../../../src/core/contract/schemas.ts';
import type { MetricsView } from '../../../src/core/view/metrics-pane.ts';

export const now = new Date('2026-11-22T10:00:00.000Z');
export const secondsAgo = (seconds: number): string =>
  new Date(now.getTime() - seconds * 1000).toISOString();
export const GIB = 1024 ** 3;

export const view = (stats: Stats, extra: Partial<MetricsView> = {}): MetricsView => ({
  stats,
  now,
  ...extra,
});

/** A running engine with every reading the pane shows. */
export const EVERY_READING: Stats = {
  state: 'running',
  runner: 'llamacpp',
  modelId: 'qwen3-8b',
  servedName: 'chat',
  uptimeSeconds: 90,
  ready: 'ready',
  lastActiveAt: secondsAgo(5),
  cpu: { utilization: 25 },
  memory: { used: 8 * GIB, total: 32 * GIB },
  gpus: [{ index: 0, utilization: 80, memoryUsed: 12 * GIB, memoryTotal: 24 * GIB }],
  history: [
    { t: 1, c: 10, m: 20, g: [{ i: 0, u: 0, m: 50 }] },
    { t: 2, c: 25, m: 25, g: [{ i: 0, u: 80, m: 50 }] },
  ],
  tokens: { running: 1, promptTokens: 100, generationTokens: 200, requests: 4 },
  errors: ['boom'],
};

/** The line for a series: its label, then two spaces and the gauge. */
export const seriesLine = (lines: readonly string[], label: string): string | undefined =>
  lines.find((line) => new RegExp(`^${label} +[█░]`).test(line));
