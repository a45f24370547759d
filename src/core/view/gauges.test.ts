/**
 * The shared reading formats: durations, sizes, gauges and sparklines, each a fixed width.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { formatBytes, formatDuration, gauge, sparkline } from './gauges.ts';

const GIB = 1024 ** 3;

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [1, '1s'],
    [59, '59s'],
    [59.9, '59s'],
    [60, '1m 0s'],
    [90, '1m 30s'],
    [3599, '59m 59s'],
    [3600, '1h 0m 0s'],
    [3661, '1h 1m 1s'],
    [90061, '25h 1m 1s'],
    [-5, '0s'],
  ])('%d s → %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 MiB'],
    [512 * 1024 ** 2, '512 MiB'],
    [GIB, '1.0 GiB'],
    [24 * GIB, '24.0 GiB'],
    [1.5 * GIB, '1.5 GiB'],
  ])('%d → %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe('gauge', () => {
  it.each([
    [0, 10, '░░░░░░░░░░'],
    [50, 10, '█████░░░░░'],
    [100, 10, '██████████'],
    [undefined, 10, '░░░░░░░░░░'],
    [33, 3, '█░░'],
    [150, 4, '████'],
    [-20, 4, '░░░░'],
    [50, 0, ''],
    [50, -3, ''],
  ])('gauge(%s, %i) is %j', (percent, width, bar) => {
    expect(gauge(percent, width)).toBe(bar);
  });

  it('property: exactly `width` cells for any reading', () => {
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: -1000, max: 1000, noNaN: true }), { nil: undefined }),
        fc.integer({ min: 0, max: 60 }),
        (percent, width) => {
          expect(Array.from(gauge(percent, width))).toHaveLength(width);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('sparkline', () => {
  it.each<[(number | undefined)[], number, string]>([
    [[], 5, '     '],
    [[], 0, ''],
    [[50], 0, ''],
    [[0, 100], 4, '  ▁█'],
    [[0, 12.5, 25, 37.5, 50, 62.5, 75, 100], 8, '▁▂▃▄▅▆▇█'],
    [[undefined, 100], 2, ' █'],
    [[150, -10], 2, '█▁'],
  ])('sparkline(%j, %i) is %j', (values, width, line) => {
    expect(sparkline(values, width)).toBe(line);
  });

  it('puts the newest reading on the right', () => {
    expect(sparkline([100, 0, 0], 3)).toBe('█▁▁');
    expect(sparkline([0, 0, 100], 3)).toBe('▁▁█');
    expect(sparkline([0, 0, 100], 6)).toBe('   ▁▁█');
  });

  it('max-pools when the history is longer than the width', () => {
    expect(sparkline([100, 0, 0, 0, 0, 0], 3)).toBe('█▁▁');
    expect(sparkline([0, 0, 0, 0, 0, 100], 3)).toBe('▁▁█');
    expect(sparkline([0, 0, 50, 0, 0, 0], 3)).toBe('▁▅▁');
    // A single spike in a long quiet history is never averaged away.
    const quiet = Array.from({ length: 100 }, (_, index) => (index === 37 ? 100 : 0));
    expect(sparkline(quiet, 10)).toBe('▁▁▁█▁▁▁▁▁▁');
  });

  it('property: exactly `width` cells; max-pooled, its highest cell is the highest reading', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 60 }),
        (values, width) => {
          const line = sparkline(values, width);
          expect(Array.from(line)).toHaveLength(width);
          if (values.length > 0) {
            const top = sparkline([Math.max(...values)], 1);
            expect(line).toContain(top);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
