/**
 * Durations as users write them (`--wake-timeout 5m`): a run of amount+unit pairs, in
 * milliseconds; anything else, or nothing positive, is refused with undefined.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    ['5m', 300_000],
    ['30s', 30_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
    ['1.5s', 1_500],
    ['2h', 7_200_000],
    ['1m30s', 90_000],
    ['1s500ms', 1_500],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['the empty string', ''],
    ['a bare number', '5'],
    ['a word', 'soon'],
    ['zero', '0s'],
    ['a negative amount', '-1s'],
    ['a space before the unit', '5 m'],
    ['a leading space', ' 5m'],
    ['a trailing space', '5m '],
    ['an unknown unit', '5d'],
    ['a unit without an amount', 'ms'],
    ['a trailing bare number', '1m30'],
    ['a dangling decimal point', '1.s'],
  ])('refuses %s (%j)', (_name, text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('reads any positive whole amount in any unit as amount × the unit', () => {
    const units = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])),
        (amount, unit) => {
          expect(parseDuration(`${amount}${unit}`)).toBe(amount * units[unit]);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('adds up the parts of a compound duration', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 1, max: 59 }),
        (h, m, s) => {
          expect(parseDuration(`${h}h${m}m${s}s`)).toBe(h * 3_600_000 + m * 60_000 + s * 1_000);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('never throws and never answers zero, a negative or a non-integer', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const ms = parseDuration(text);
        if (ms !== undefined) {
          expect(Number.isInteger(ms)).toBe(true);
          expect(ms).toBeGreaterThan(0);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('parseDuration rounding', () => {
  it('refuses a duration that rounds to zero milliseconds', () => {
    expect(parseDuration('0.4ms')).toBeUndefined();
  });
});
