/**
 * CONTEXT values: a whole number of tokens, optionally with a decimal suffix, so `32k` is 32000
 * and `1m` is 1000000 (decimal, as the engines' own docs count context). Pure.
 */

/** Decimal digits each suffix shifts the number by. */
const EXPONENTS: Readonly<Record<string, number>> = { '': 0, k: 3, m: 6 };

/**
 * The size in tokens, or undefined when `text` is not a positive whole size. The arithmetic is
 * done on the digits, not in floating point, so `16.1k` is exactly 16100.
 */
export function parseContextSize(text: string): number | undefined {
  const match = /^(\d+)(?:\.(\d+))?([km]?)$/i.exec(text);
  if (match === null) {
    return undefined;
  }
  const [, whole = '', fraction = '', suffix = ''] = match;
  const exponent = EXPONENTS[suffix.toLowerCase()] ?? 0;
  const kept = fraction.padEnd(exponent, '0');
  // Digits beyond the suffix's reach must be zeros: 1.5 tokens is not a size.
  if (/[^0]/.test(kept.slice(exponent))) {
    return undefined;
  }
  const tokens = Number(`${whole}${kept.slice(0, exponent)}`);
  return Number.isSafeInteger(tokens) && tokens >= 1 ? tokens : undefined;
}
