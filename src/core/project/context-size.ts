/**
 * CONTEXT values: a whole number of tokens, optionally with a decimal suffix, so `32k` is 32000
 * and `1m` is 1000000 (decimal, as the engines' own docs count context). Pure.
 */

const MULTIPLIERS: Readonly<Record<string, number>> = { '': 1, k: 1_000, m: 1_000_000 };

/** The size in tokens, or undefined when `text` is not a positive size. */
export function parseContextSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text);
  if (match === null) {
    return undefined;
  }
  const [, digits = '', suffix = ''] = match;
  const tokens = Number(digits) * (MULTIPLIERS[suffix.toLowerCase()] ?? Number.NaN);
  if (!Number.isInteger(tokens) || tokens < 1 || !Number.isSafeInteger(tokens)) {
    return undefined;
  }
  return tokens;
}
