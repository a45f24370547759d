/**
 * The earliest idle stop among the nodes under it (due.ts: the fresh read it is decided on),
 * kept as the nodes change rather than read from every one of them after each event: at 10,000
 * nodes under idle stop that read cost a millisecond per request (bench/scheduler/scheduler-cost.ts). Each change to a node (the
 * ledger marks it) renews that node's entry in a heap (lazy-heap.ts). `markAll` rebuilds the
 * heap from every node, for events rare enough to afford it.
 *
 * The heap leaves out the one condition that is not the node's own, nothing waiting for it here
 * (idle-stop.ts): due.ts reads every node while requests wait, as before.
 */
import { LazyHeap, Stamps } from '../lazy-heap.ts';
import { activityReadDue } from './idle-stop.ts';
import type { NodeRecord } from './nodes.ts';

interface Entry {
  readonly at: number;
  readonly record: NodeRecord;
  readonly stamp: number;
}

/**
 * When the node's next fresh read of its activity falls due if nothing changes, if ever: an idle
 * stop is decided on such a read, one asked at the stop's time among them (idle-stop.ts).
 */
export function idleDueOf(record: NodeRecord): number | undefined {
  return activityReadDue(record);
}

export class IdleDue {
  private readonly stamps = new Stamps<NodeRecord>();
  private readonly heap = new LazyHeap<Entry>(
    (a, b) => a.at - b.at,
    (entry) => this.stamps.current(entry.record, entry.stamp),
  );
  private readonly marked = new Set<NodeRecord>();
  private all = true;

  constructor(private readonly watched: readonly NodeRecord[]) {}

  /** The node changed: its entry is renewed at the next read. */
  mark(record: NodeRecord): void {
    if (!this.all && record.settings.idleStopMs !== undefined) {
      this.marked.add(record);
    }
  }

  markAll(): void {
    this.all = true;
    this.marked.clear();
  }

  /** The earliest idle stop of any node under it, as idleDueOf reads each one now. */
  earliest(): number | undefined {
    if (this.all || this.heap.size > 4 * this.watched.length + 64) {
      this.all = false;
      const entries: Entry[] = [];
      for (const record of this.watched) {
        const entry = this.renew(record);
        if (entry !== undefined) {
          entries.push(entry);
        }
      }
      this.heap.rebuild(entries);
    } else {
      for (const record of this.marked) {
        const entry = this.renew(record);
        if (entry !== undefined) {
          this.heap.push(entry);
        }
      }
    }
    this.marked.clear();
    return this.heap.top()?.at;
  }

  private renew(record: NodeRecord): Entry | undefined {
    const stamp = this.stamps.renew(record);
    const at = idleDueOf(record);
    return at === undefined ? undefined : { at, record, stamp };
  }
}
