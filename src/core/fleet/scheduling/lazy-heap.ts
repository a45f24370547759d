/**
 * A binary min-heap whose entries go out of date rather than being removed, pure: the scheduler
 * renews a node's entry when the node changes (idle-due.ts, place-index.ts) and drops the older
 * one only when it reaches the top, so a change costs O(log n) however many nodes there are.
 */

/** Each renewal of a node's entries; an entry with an older stamp is out of date. */
export class Stamps<K> {
  private readonly latest = new Map<K, number>();

  renew(key: K): number {
    const stamp = (this.latest.get(key) ?? 0) + 1;
    this.latest.set(key, stamp);
    return stamp;
  }

  current(key: K, stamp: number): boolean {
    return this.latest.get(key) === stamp;
  }
}

export class LazyHeap<E> {
  private entries: E[] = [];

  constructor(
    /** Negative when `a` comes before `b`. */
    private readonly before: (a: E, b: E) => number,
    /** Whether an entry is still current. */
    private readonly current: (entry: E) => boolean,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  /** Replaces every entry (Floyd's heap construction, linear). */
  rebuild(entries: E[]): void {
    this.entries = entries;
    for (let index = (entries.length >> 1) - 1; index >= 0; index -= 1) {
      this.down(index);
    }
  }

  push(entry: E): void {
    const heap = this.entries;
    let index = heap.length;
    heap.push(entry);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent] as E;
      if (this.before(above, entry) <= 0) {
        break;
      }
      heap[index] = above;
      index = parent;
    }
    heap[index] = entry;
  }

  /** The first current entry, dropping the out-of-date ones above it. */
  top(): E | undefined {
    for (let top = this.entries[0]; top !== undefined; top = this.entries[0]) {
      if (this.current(top)) {
        return top;
      }
      const last = this.entries.pop() as E;
      if (this.entries.length > 0) {
        this.entries[0] = last;
        this.down(0);
      }
    }
    return undefined;
  }

  private down(from: number): void {
    const heap = this.entries;
    const entry = heap[from] as E;
    let index = from;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= heap.length) {
        break;
      }
      const right = heap[child + 1];
      if (right !== undefined && this.before(right, heap[child] as E) < 0) {
        child += 1;
      }
      const below = heap[child] as E;
      if (this.before(below, entry) >= 0) {
        break;
      }
      heap[index] = below;
      index = child;
    }
    heap[index] = entry;
  }
}
