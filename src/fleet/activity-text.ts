/**
 * `svc fleet activity` as lines (docs/design.md D29): one request a line, oldest first like a log,
 * in columns wide enough that lines printed later while following stay aligned; and which entries
 * of a fresh read are new since the last. Pure.
 */
import { isRecord } from '../core/fleet/file/fleet-node.ts';

/** One entry of `GET /v1/fleet/activity`, as the gateway wrote it. */
export type ActivityEntry = Readonly<Record<string, unknown>>;

const WIDTHS = [24, 12, 20, 12, 6, 8, 8, 8, 0];

export const ACTIVITY_HEAD = [
  'AT',
  'CALLER',
  'MODEL',
  'NODE',
  'STATUS',
  'QUEUE',
  'TTFB',
  'TOTAL',
  'TOKENS (PROMPT/COMPLETION/CACHED)',
];

const text = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '-';
const ms = (value: unknown): string => (typeof value === 'number' ? `${value}ms` : '-');

function line(cells: readonly string[]): string {
  return cells
    .map((cell, index) => cell.padEnd(WIDTHS[index] ?? 0))
    .join('  ')
    .trimEnd();
}

export function activityLine(entry: ActivityEntry): string {
  return line([
    text(entry['at']),
    text(entry['caller']),
    text(entry['model']),
    text(entry['node']),
    text(entry['status']),
    ms(entry['queueMs']),
    ms(entry['ttfbMs']),
    ms(entry['totalMs']),
    `${text(entry['promptTokens'])}/${text(entry['completionTokens'])}/${text(entry['cachedTokens'])}`,
  ]);
}

export const activityHead = (): string => line(ACTIVITY_HEAD);

/** The reply's entries, newest first as the gateway sends them. */
export function activityEntries(body: unknown): ActivityEntry[] {
  const requests = isRecord(body) && Array.isArray(body['requests']) ? body['requests'] : [];
  return (requests as unknown[]).filter(isRecord);
}

const same = (a: ActivityEntry | undefined, b: ActivityEntry | undefined): boolean =>
  a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b);

/**
 * The entries of `fresh` (newest first) that `seen` (the previous read, newest first) did not
 * have, newest first: those before where the previous read's newest entries start again. When
 * they are not found (more requests came than one read holds), every fresh entry is new.
 */
export function newEntries(
  seen: readonly ActivityEntry[],
  fresh: readonly ActivityEntry[],
): ActivityEntry[] {
  if (seen.length === 0) {
    return [...fresh];
  }
  // A few of the newest seen, in a row, tell equal-looking entries apart.
  const run = Math.min(seen.length, 5);
  for (let start = 0; start < fresh.length; start += 1) {
    let matched = 0;
    while (matched < run && start + matched < fresh.length) {
      if (!same(fresh[start + matched], seen[matched])) {
        break;
      }
      matched += 1;
    }
    if (matched === run || (matched > 0 && start + matched === fresh.length)) {
      return fresh.slice(0, start);
    }
  }
  return [...fresh];
}
