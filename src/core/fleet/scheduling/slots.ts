/**
 * Slot accounting (GUIDE D25), pure: a node's load, whether it has a free slot, and how soon a
 * refused caller should come back, from the rate at which slots have been freeing.
 *
 * Load: the rule is the larger of this gateway's in-flight count and the engine's `busy`,
 * so other replicas and direct callers are seen within one refresh. We keep the same figure at
 * each refresh but split it: `external = max(0, busy − ours at that refresh)` is what others hold,
 * and load is `ours + external` until the next refresh. At a refresh the two agree; between
 * refreshes our own ends free their slot at once instead of waiting for the next scrape to lower
 * `busy` (with max(), a node whose requests just ended would look full for up to a refresh).
 */

/** Slot frees remembered per node: enough for a rate, bounded whatever the traffic. */
export const FREES_KEPT = 32;
/** Frees older than this say nothing about the rate now. */
export const RATE_WINDOW_MS = 60_000;
/** Retry-After when nothing has freed lately (a first burst, or requests longer than the window). */
export const FALLBACK_RETRY_S = 5;
/** A client told to wait longer than this would rather hear a 503 and decide itself. */
export const MAX_RETRY_S = 600;

export interface Occupancy {
  /** This gateway's requests in flight on the node. */
  readonly inFlight: number;
  /** What others held at the last refresh (see above). */
  readonly external: number;
  /** The node's slots; undefined: unknown. */
  readonly slots: number | undefined;
}

export function load(node: Occupancy): number {
  return node.inFlight + node.external;
}

/** A node with unknown slots is never held back (GUIDE D25, today's behaviour). */
export function hasFreeSlot(node: Occupancy): boolean {
  return node.slots === undefined || load(node) < node.slots;
}

/** What others hold, from a refresh's `busy` and our count when it came. */
export function externalLoad(busy: number | undefined, ours: number): number {
  return busy === undefined ? 0 : Math.max(0, busy - ours);
}

/** When slots freed on one node: the newest FREES_KEPT, in a ring (nothing shifts per end). */
export class FreeRecord {
  private readonly times: number[] = [];
  private next = 0;

  get size(): number {
    return this.times.length;
  }

  add(at: number): void {
    if (this.times.length < FREES_KEPT) {
      this.times.push(at);
    } else {
      this.times[this.next] = at;
    }
    this.next = (this.next + 1) % FREES_KEPT;
  }

  /** Slots freed per second over the recent window; 0 when unknown. */
  rate(now: number): number {
    let count = 0;
    let first = Number.POSITIVE_INFINITY;
    for (const at of this.times) {
      if (at > now - RATE_WINDOW_MS) {
        count += 1;
        first = Math.min(first, at);
      }
    }
    if (count === 0) {
      return 0;
    }
    // n frees since the oldest kept one, measured to now: a node that stopped freeing slots
    // slows its own estimate.
    return (count * 1_000) / Math.max(now - first, 1_000);
  }
}

/** Whole seconds until `ahead` more slots free at `ratePerSecond` (GUIDE D25: ≥ 1). */
export function retryAfterSeconds(ratePerSecond: number, ahead: number): number {
  if (ratePerSecond <= 0) {
    return FALLBACK_RETRY_S;
  }
  return Math.min(MAX_RETRY_S, Math.max(1, Math.ceil(ahead / ratePerSecond)));
}
