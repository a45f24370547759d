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

export const ACTIVITY_KEPT = 1_000;
export const ACTIVITY_DEFAULT_LIMIT = 100;

export class ActivityRing {
  private readonly entries: (Activity | undefined)[] = new Array<Activity | undefined>(
    ACTIVITY_KEPT,
  );
  private next = 0;
  private count = 0;

  add(entry: Activity): void {
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
        found.push(entry);
      }
    }
    return found;
  }
}
