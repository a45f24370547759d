/**
 * The earliest idle stop among the nodes under it (due.ts), kept as the nodes change rather than
 * read from every one of them after each event: at 10,000 nodes under idle stop that read cost
 * a millisecond per request (bench/scheduler/scheduler-cost.ts). Each change to a node (the ledger marks it)
 * renews that node's entry in a min-heap; an entry a later one outdates is dropped when it
 * surfaces. `markAll` rebuilds the heap from every node, for events rare enough to afford it.
 *
 * The heap leaves out the one condition that is not the node's own, nothing waiting for it here
 * (idle-stop.ts): due.ts reads every node while requests wait, as before.
 */
import { idleStopAt } from './idle-stop.ts';
import { isQuiet, type NodeRecord } from './nodes.ts';

interface Entry {
  readonly at: number;
  readonly record: NodeRecord;
  readonly stamp: number;
}

/** When the node's idle stop falls due if nothing changes and nothing waits for it, if ever. */
export function idleDueOf(record: NodeRecord): number | undefined {
  const free = record.waking === undefined && record.stopping === undefined;
  return free && isQuiet(record) ? idleStopAt(record) : undefined;
}

export class IdleDue {
  private heap: Entry[] = [];
  /** Each node's latest stamp: an entry with another one is outdated. */
  private readonly stamps = new Map<NodeRecord, number>();
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
    if (this.all || this.heap.length > 4 * this.watched.length + 64) {
      this.rebuild();
    } else {
      for (const record of this.marked) {
        const entry = this.renew(record);
        if (entry !== undefined) {
          this.push(entry);
        }
      }
    }
    this.marked.clear();
    for (let top = this.heap[0]; top !== undefined; top = this.heap[0]) {
      if (this.stamps.get(top.record) === top.stamp) {
        return top.at;
      }
      this.pop();
    }
    return undefined;
  }

  private renew(record: NodeRecord): Entry | undefined {
    const stamp = (this.stamps.get(record) ?? 0) + 1;
    this.stamps.set(record, stamp);
    const at = idleDueOf(record);
    return at === undefined ? undefined : { at, record, stamp };
  }

  private rebuild(): void {
    this.all = false;
    const heap: Entry[] = [];
    for (const record of this.watched) {
      const entry = this.renew(record);
      if (entry !== undefined) {
        heap.push(entry);
      }
    }
    this.heap = heap;
    for (let index = (heap.length >> 1) - 1; index >= 0; index -= 1) {
      this.down(index);
    }
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    let index = heap.length;
    heap.push(entry);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent] as Entry;
      if (above.at <= entry.at) {
        break;
      }
      heap[index] = above;
      index = parent;
    }
    heap[index] = entry;
  }

  private pop(): void {
    const last = this.heap.pop();
    if (last !== undefined && this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
  }

  private down(from: number): void {
    const heap = this.heap;
    const entry = heap[from] as Entry;
    let index = from;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= heap.length) {
        break;
      }
      const right = heap[child + 1];
      if (right !== undefined && right.at < (heap[child] as Entry).at) {
        child += 1;
      }
      const below = heap[child] as Entry;
      if (below.at >= entry.at) {
        break;
      }
      heap[index] = below;
      index = child;
    }
    heap[index] = entry;
  }
}
