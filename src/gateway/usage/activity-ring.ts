/**
 * The last requests the gateway answered (docs/design.md D29 activity): a ring of 1,000, newest
 * first when read. Each entry says who, what, where and how long, never a body or a header.
 */

export interface Activity {
  readonly at: string;
  readonly caller: string;
  readonly model: string;
  readonly node: string | null;
  readonly status: number;
  readonly queueMs: number;
  readonly ttfbMs: number | null;
  readonly totalMs: number;
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  readonly cachedTokens: number | null;
}

/** As the ring keeps it: the time as a number, written as RFC 3339 only when read. */
export interface KeptActivity extends Omit<Activity, 'at'> {
  /** Epoch milliseconds: when it arrived. */
  readonly atMs: number;
}

export const ACTIVITY_KEPT = 1_000;
export const ACTIVITY_DEFAULT_LIMIT = 100;

export class ActivityRing {
  private readonly entries: (KeptActivity | undefined)[] = new Array<KeptActivity | undefined>(
    ACTIVITY_KEPT,
  );
  private next = 0;
  private count = 0;

  add(entry: KeptActivity): void {
    this.entries[this.next] = entry;
    this.next = (this.next + 1) % ACTIVITY_KEPT;
    this.count = Math.min(this.count + 1, ACTIVITY_KEPT);
  }

  /** The newest `limit` entries, newest first. */
  latest(limit: number = ACTIVITY_DEFAULT_LIMIT): Activity[] {
    const taken = Math.max(0, Math.min(limit, this.count));
    const found: Activity[] = [];
    for (let index = 1; index <= taken; index += 1) {
      const entry = this.entries[(this.next - index + ACTIVITY_KEPT) % ACTIVITY_KEPT];
      if (entry !== undefined) {
        const { atMs, ...rest } = entry;
        found.push({ at: new Date(atMs).toISOString(), ...rest });
      }
    }
    return found;
  }
}
