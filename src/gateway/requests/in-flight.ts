/**
 * The requests this gateway has in flight on each node: counted from the moment one is sent to
 * its engine until its reply ends, fails, or its caller hangs up. Exact, not sampled: a stop asks
 * it whether the node is busy (GUIDE D28), and capacity decisions read the same count (GUIDE D25
 * `inFlight`). Each `begin` hands back its own release, safe to call more than once, so an error
 * path that releases twice cannot take another request's count with it.
 */

/** One node's requests in flight, as a busy stop names them. */
export interface NodeInFlight {
  readonly count: number;
  /** How many of them ask for each model, in the order the models were first seen. */
  readonly models: ReadonlyMap<string, number>;
  /** How long the oldest has run (ms, on the clock the count was built with). */
  readonly oldestMs: number;
}

interface Entry {
  readonly model: string;
  readonly startedAt: number;
}

export class InFlight {
  private readonly byNode = new Map<string, Set<Entry>>();

  /** `now` in ms; a monotonic clock (performance.now) keeps durations true across clock changes. */
  constructor(private readonly now: () => number) {}

  /** Counts one request to `model` on `node`; the returned function ends it (once). */
  begin(node: string, model: string): () => void {
    let entries = this.byNode.get(node);
    if (entries === undefined) {
      entries = new Set();
      this.byNode.set(node, entries);
    }
    const entry: Entry = { model, startedAt: this.now() };
    entries.add(entry);
    const held = entries;
    return () => {
      if (held.delete(entry) && held.size === 0 && this.byNode.get(node) === held) {
        this.byNode.delete(node);
      }
    };
  }

  /** The node's requests in flight now. */
  count(node: string): number {
    return this.byNode.get(node)?.size ?? 0;
  }

  /** What the node's requests in flight are, or undefined when it has none. */
  of(node: string): NodeInFlight | undefined {
    const entries = this.byNode.get(node);
    if (entries === undefined || entries.size === 0) {
      return undefined;
    }
    const models = new Map<string, number>();
    let oldest = Number.POSITIVE_INFINITY;
    for (const entry of entries) {
      models.set(entry.model, (models.get(entry.model) ?? 0) + 1);
      oldest = Math.min(oldest, entry.startedAt);
    }
    return { count: entries.size, models, oldestMs: Math.max(0, this.now() - oldest) };
  }
}
