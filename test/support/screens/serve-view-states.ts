/**
 * The serve view's states as its layout tests build them: an idle and a running engine's
 * readings, a tall (eight-GPU) one, log panes of numbered lines, and the log region of a drawn
 * screen.
 */
import { expect } from 'vitest';

import type { Stats } from '../../../src/core/contract/schemas.ts';
import type { ViewState } from '../../../src/serve/view/layout.ts';
import { appendLines, EMPTY_PANE, type LogPane } from '../../../src/serve/view/log-pane.ts';

export const GIB = 1024 ** 3;
export const now = new Date('2026-11-22T10:00:00.000Z');

export const IDLE: Stats = { state: 'idle' };

export const RUNNING: Stats = {
  state: 'running',
  runner: 'llamacpp',
  modelId: 'qwen3-8b',
  servedName: 'chat',
  uptimeSeconds: 90,
  ready: 'ready',
  lastActiveAt: new Date(now.getTime() - 5000).toISOString(),
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

/** Eight GPUs: a tall metrics section. */
export const TALL: Stats = {
  ...RUNNING,
  gpus: Array.from({ length: 8 }, (_, index) => ({
    index,
    utilization: index * 10,
    memoryUsed: index * GIB,
    memoryTotal: 80 * GIB,
    temperature: 50 + index,
  })),
  history: [],
};

export const numbered = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, index) => `log ${from + index}`);

export const stateOf = (stats: Stats, log: LogPane, extra: Partial<ViewState> = {}): ViewState => ({
  source: './Svcfile',
  metrics: { stats, now },
  log,
  ...extra,
});

/** A running engine with `count` log lines, on the tail. */
export const withLog = (count: number, stats: Stats = RUNNING): ViewState =>
  stateOf(stats, appendLines(EMPTY_PANE, numbered(1, count), 10));

export const divider = (columns: number): string => '─'.repeat(columns);

/** Lines between the second divider and the last one (frame drawn, rows ≥ 6). */
export const logRegion = (lines: readonly string[], columns: number): string[] => {
  const dividers = lines.flatMap((line, index) => (line === divider(columns) ? [index] : []));
  expect(dividers).toHaveLength(3);
  const [, above = 0, below = 0] = dividers;
  return lines.slice(above + 1, below);
};
