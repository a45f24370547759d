/** Durations as users write them on the command line (`5m`, `30s`, `1h30m`, `250ms`). Pure. */

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or undefined when `text` is not a positive duration. */
export function parseDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) {
    return undefined;
  }
  let total = 0;
  for (const [, amount = '', unit = ''] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(amount) * (UNITS[unit] ?? Number.NaN);
  }
  const rounded = Math.round(total);
  return Number.isFinite(rounded) && rounded > 0 ? rounded : undefined;
}

/** A duration as a message shows it: whole minutes as `5m`, else rounded seconds (`90s`). */
export function formatDurationText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 1000)}s`;
}
