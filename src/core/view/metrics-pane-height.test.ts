/**
 * The metrics section keeps one height whatever readings exist, so the views below it never jump:
 * rows for missing readings, the counters row before any scrape, and a GPU seen once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { Stats } from '../contract/schemas.ts';
import { metricsLines, type MetricsView } from './metrics-pane.ts';

const now = new Date('2026-11-22T10:00:00.000Z');
const secondsAgo = (seconds: number): string =>
  new Date(now.getTime() - seconds * 1000).toISOString();
const GIB = 1024 ** 3;

const view = (stats: Stats, extra: Partial<MetricsView> = {}): MetricsView => ({
  stats,
  now,
  ...extra,
});

/** The line for a series: its label, then two spaces and the gauge. */
/** A running engine with every reading the pane shows. */
const EVERY_READING: Stats = {
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

const seriesLine = (lines: readonly string[], label: string): string | undefined =>
  lines.find((line) => new RegExp(`^${label} +[█░]`).test(line));

describe('metricsLines: one height whatever readings exist', () => {
  const FULL: Stats = {
    ...EVERY_READING,
    gpus: [
      { index: 0, utilization: 80, memoryUsed: 12 * GIB, memoryTotal: 24 * GIB },
      { index: 1, utilization: 10, temperature: 60 },
    ],
    history: [{ t: 1, c: 10, m: 20, g: [{ i: 0, u: 0, m: 50 }] }],
  };
  const OPTIONAL = [
    'runner',
    'modelId',
    'servedName',
    'uptimeSeconds',
    'ready',
    'lastActiveAt',
    'cpu',
    'memory',
    'gpus',
    'history',
    'tokens',
    'errors',
  ] as const;

  it('the section is as tall with any readings missing as with all of them, given its GPU slots', () => {
    const height = metricsLines(view(FULL, { gpuSlots: [0, 1] }), 80).length;
    fc.assert(
      fc.property(
        fc.subarray([...OPTIONAL]),
        fc.constantFrom('idle', 'running', 'stopped', 'crashed'),
        fc.integer({ min: 0, max: 4 }),
        fc.boolean(),
        fc.integer({ min: 20, max: 200 }),
        (dropped, state, errorCount, oneGpu, columns) => {
          const stats: Record<string, unknown> = Object.fromEntries(
            Object.entries({ ...FULL, state }).filter(
              ([key]) => !(dropped as readonly string[]).includes(key),
            ),
          );
          if (!dropped.includes('errors')) {
            stats.errors = Array.from({ length: errorCount }, (_, index) => `error ${index}`);
          }
          if (oneGpu && !dropped.includes('gpus')) {
            stats.gpus = FULL.gpus?.slice(0, 1);
          }
          const lines = metricsLines(view(stats as Stats, { gpuSlots: [0, 1] }), columns);
          expect(lines).toHaveLength(height);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the token counters row from the first frame, before any scrape', () => {
    const before = metricsLines(view({ state: 'running', uptimeSeconds: 0 }), 80);
    const after = metricsLines(
      view({ state: 'running', uptimeSeconds: 15, tokens: FULL.tokens ?? {} }),
      80,
    );
    expect(before).toHaveLength(after.length);
    expect(before.indexOf('in flight —   prompt tokens —   generated —   requests —')).toBe(
      after.indexOf('in flight 1   prompt tokens 100   generated 200   requests 4'),
    );
  });

  it('keeps a seen GPU row while no reading names it', () => {
    const lines = metricsLines(view({ state: 'stopped' }, { gpuSlots: [3] }), 64);
    expect(seriesLine(lines, 'GPU util')).toBe(`GPU util  ░░░░░░░░░░ ${' '.repeat(20)}  —`);
    expect(seriesLine(lines, 'GPU mem')).toBe(`GPU mem   ░░░░░░░░░░ ${' '.repeat(20)}  —`);
  });
});
