import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseContextSize } from './context-size.ts';

describe('parseContextSize', () => {
  it.each([
    ['32768', 32768],
    ['1', 1],
    ['32k', 32_000],
    ['32K', 32_000],
    ['128K', 128_000],
    ['1m', 1_000_000],
    ['1M', 1_000_000],
    ['1.5k', 1500],
    ['0.5m', 500_000],
    ['2.25M', 2_250_000],
    ['0.001k', 1],
    ['1.0', 1],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('reads %s as %d tokens', (text, tokens) => {
    expect(parseContextSize(text)).toBe(tokens);
  });

  it.each([
    '0',
    '0k',
    '0.0m',
    '-5',
    '-5k',
    '+5',
    'abc',
    'k',
    'm',
    '12x',
    '32kb',
    '1g',
    '0.0001k',
    '1.5',
    '0.5',
    '.5k',
    '5.k',
    '1e3',
    '0x10',
    '',
    ' 32k',
    '32k ',
    '32 k',
    '1,000',
    '9007199254740992',
    '9007199254741k',
    '10000000000m',
  ])('refuses "%s"', (text) => {
    expect(parseContextSize(text)).toBeUndefined();
  });

  it('reads every positive safe integer written plainly as itself', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (tokens) => {
        expect(parseContextSize(String(tokens))).toBe(tokens);
      }),
      { numRuns: 100 },
    );
  });

  it('multiplies whole numbers by 1000 for k and 1000000 for m, in either case', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(['k', 1_000] as const, ['m', 1_000_000] as const),
        fc.boolean(),
        fc.integer({ min: 1, max: 9_007_199_254 }),
        ([suffix, multiplier], upper, count) => {
          const written = `${count}${upper ? suffix.toUpperCase() : suffix}`;
          expect(parseContextSize(written)).toBe(count * multiplier);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('returns either undefined or a positive safe integer, for any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.stringMatching(/^-?\d{0,20}(\.\d{0,8})?[kmKMx]?$/)),
        (text) => {
          const tokens = parseContextSize(text);
          if (tokens !== undefined) {
            expect(Number.isSafeInteger(tokens)).toBe(true);
            expect(tokens).toBeGreaterThanOrEqual(1);
            expect(text).toMatch(/^\d+(\.\d+)?[km]?$/i);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses zero and every negative number, with or without a suffix', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000, max: 0 }),
        fc.constantFrom('', 'k', 'm'),
        (count, suffix) => {
          expect(parseContextSize(`${count}${suffix}`)).toBeUndefined();
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('decimal sizes are exact (no floating-point drift)', () => {
  it.each([
    ['16.1k', 16100],
    ['4.1m', 4100000],
    ['8.2m', 8200000],
    ['2.01k', 2010],
    ['2.03k', 2030],
    ['1.0', 1],
  ])('%s is %i', (text, tokens) => {
    expect(parseContextSize(text)).toBe(tokens);
  });
});
