/**
 * The fleet file's `concurrency` section (spec §4.2 rule 6), pure: a total and per-tag limits on
 * requests in flight, each a positive whole number; every refusal goes to `problem`.
 */
import { isRecord } from './fleet-node.ts';

export interface FleetConcurrency {
  readonly total?: number;
  readonly tags?: Readonly<Record<string, number>>;
}

export function concurrencyOf(
  raw: unknown,
  problem: (message: string) => void,
): FleetConcurrency | undefined {
  if (raw === undefined) {
    return undefined;
  }
  if (!isRecord(raw)) {
    problem('concurrency must be a mapping with total and/or tags');
    return undefined;
  }
  const total = raw['total'];
  if (
    total !== undefined &&
    (typeof total !== 'number' || !Number.isInteger(total) || total <= 0)
  ) {
    problem(`concurrency.total must be a positive whole number, got ${JSON.stringify(total)}`);
  }
  const tags: Record<string, number> = {};
  if (raw['tags'] !== undefined) {
    if (!isRecord(raw['tags'])) {
      problem('concurrency.tags must map "key=value" to a limit');
    } else {
      for (const [tag, limit] of Object.entries(raw['tags'])) {
        if (!/^[^=]+=[^=]+$/.test(tag)) {
          problem(`concurrency.tags: "${tag}" must be key=value`);
        } else if (typeof limit !== 'number' || !Number.isInteger(limit) || limit <= 0) {
          problem(`concurrency.tags["${tag}"] must be a positive whole number`);
        } else {
          tags[tag] = limit;
        }
      }
    }
  }
  // spec §4.2 rule 6: an empty `concurrency: {}` declares no limit, so nothing rides along.
  if (typeof total === 'number' && total > 0) {
    return { total, ...(Object.keys(tags).length > 0 ? { tags } : {}) };
  }
  return Object.keys(tags).length > 0 ? { tags } : undefined;
}
