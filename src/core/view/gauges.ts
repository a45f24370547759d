/**
 * Readings as text, shared by every terminal view (serve's metrics section, the fleet dashboard):
 * durations, byte sizes, counters, a gauge of the current reading and a sparkline of its history.
 * Pure.
 */

const SPARKS = '▁▂▃▄▅▆▇█';

export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) {
    return `${h}h ${m}m ${s}s`;
  }
  return m > 0 ? `${m}m ${s}s` : `${s}s`;
}

export function formatBytes(bytes: number): string {
  const gib = bytes / 1024 ** 3;
  return gib >= 1 ? `${gib.toFixed(1)} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;
}

export function formatCount(value: number | undefined): string {
  return value === undefined ? '—' : value.toLocaleString('en-US');
}

export function gauge(percent: number | undefined, width: number): string {
  if (width <= 0) {
    return '';
  }
  const filled =
    percent === undefined ? 0 : Math.round((Math.min(100, Math.max(0, percent)) / 100) * width);
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

/** History as a sparkline `width` wide, newest on the right, max-pooled when longer. */
export function sparkline(values: readonly (number | undefined)[], width: number): string {
  if (width <= 0) {
    return '';
  }
  // A missing reading draws as a gap, not as 0%.
  const known = values.map((value) => value ?? Number.NaN);
  const peak = (slice: readonly number[]): number => {
    const present = slice.filter((value) => !Number.isNaN(value));
    return present.length === 0 ? Number.NaN : Math.max(...present);
  };
  const buckets: number[] = [];
  if (known.length <= width) {
    buckets.push(...known);
  } else {
    for (let bucket = 0; bucket < width; bucket += 1) {
      const from = Math.floor((bucket * known.length) / width);
      const to = Math.floor(((bucket + 1) * known.length) / width);
      buckets.push(peak(known.slice(from, Math.max(to, from + 1))));
    }
  }
  const line = buckets
    .map((value) =>
      Number.isNaN(value)
        ? ' '
        : (SPARKS[
            Math.min(
              SPARKS.length - 1,
              Math.floor((Math.min(100, Math.max(0, value)) / 100) * SPARKS.length),
            )
          ] ?? ' '),
    )
    .join('');
  return line.padStart(width, ' ');
}
