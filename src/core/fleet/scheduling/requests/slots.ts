/**
 * Slot accounting (docs/design.md D25), pure: a node's load, whether it takes another request, and
 * how soon a refused caller should come back, from the rate at which slots have been freeing.
 *
 * Two counts make a node's load. Ours is exact: from the moment one of our requests is sent until
 * its last byte or its caller hangs up. Others' (`external`) comes from the node's `busy`, which is
 * only as fresh as the engine's last scrape: a daemon scrapes every 15 s by default (spec §3), so a
 * reading outlives what it saw by seconds. Hence:
 * - Only our own count closes a node to our requests (`hasFreeSlot`). Gating on a stale `busy`
 *   held this gateway's whole queue behind another caller's burst long over, with the engine
 *   idle (docs/benchmarks.md: 0 req/s for a 6 s pass after another client's). Others' requests
 *   rank instead: a node that looks free counting them is chosen before one that does not
 *   (`seemsFree`), and the engine queues what overlaps, as it would without svc.
 * - `busy` counts our requests too, as they were at the scrape, which we cannot date. Subtracting
 *   our count now would read our ended requests as someone else's; we subtract the most we had in
 *   flight since the scrape could have been taken (`OursPeak`), so others' share errs low.
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

/**
 * A node's slots as the scheduler counts them (docs/design.md D31): the fleet file's `slots` caps
 * what the engine reports (an engine started with more never gets more than the cap from us), and
 * stands in for a count the engine does not report.
 */
export function cappedSlots(
  reported: number | undefined,
  cap: number | undefined,
): number | undefined {
  if (cap === undefined) {
    return reported;
  }
  return reported === undefined ? cap : Math.min(reported, cap);
}

/** Takes another of our requests: our own count under its slots; unknown slots never hold back. */
export function hasFreeSlot(node: Occupancy): boolean {
  return node.slots === undefined || node.inFlight < node.slots;
}

/** Has a free slot counting others' requests too: the first choice among those that take ours. */
export function seemsFree(node: Occupancy): boolean {
  return node.slots === undefined || load(node) < node.slots;
}

/** Our in-flight count at its highest since the held `busy` reading could have been scraped. */
export interface OursPeak {
  /** Since the last view arrived. */
  sinceView: number;
  /** Since before the scrape behind `busy` (see `othersAtView`). */
  sinceReading: number;
  /** The `busy` of the last view. */
  busy: number | undefined;
}

export function oursPeak(): OursPeak {
  return { sinceView: 0, sinceReading: 0, busy: undefined };
}

/** One of ours was sent; `ours` is our count now. */
export function peakSent(peak: OursPeak, ours: number): void {
  peak.sinceView = Math.max(peak.sinceView, ours);
}

/**
 * A view arrived with `busy` while `ours` are in flight: what others hold. A changed figure is a
 * scrape taken since the previous view, so our peak since then covers it; an unchanged one may be
 * the same scrape, older still, so the peak keeps growing until the figure changes.
 */
export function othersAtView(peak: OursPeak, busy: number | undefined, ours: number): number {
  peak.sinceReading =
    busy === peak.busy ? Math.max(peak.sinceReading, peak.sinceView) : peak.sinceView;
  peak.busy = busy;
  peak.sinceView = ours;
  return busy === undefined ? 0 : Math.max(0, busy - peak.sinceReading);
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

/** Whole seconds until `ahead` more slots free at `ratePerSecond` (docs/design.md D25: ≥ 1). */
export function retryAfterSeconds(ratePerSecond: number, ahead: number): number {
  if (ratePerSecond <= 0) {
    return FALLBACK_RETRY_S;
  }
  return Math.min(MAX_RETRY_S, Math.max(1, Math.ceil(ahead / ratePerSecond)));
}
