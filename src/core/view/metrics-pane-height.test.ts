/**
 * The metrics section keeps one height whatever readings exist, so the views below it never jump:
 * rows for missing readings, the counters row before any scrape, and a GPU seen once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  EVERY_READING,
  GIB,
  seriesLine,
  view,
} from '../../../test/support/screens/metrics-pane-view.ts';
import type { Stats } from '../contract/schemas.ts';
import { metricsLines } from './metrics-pane.ts';

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
