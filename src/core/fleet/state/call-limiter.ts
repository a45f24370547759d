/**
 * A bound on how many node calls run at once, with two queues: calls a request is waiting on go
 * before background refreshes, and a queued background call can be moved to the front when a
 * request comes to need it. FIFO within each queue; O(1) per call however long the queue.
 */

export interface LimitedCall {
  /** Where the call waits: `undefined` once it has started (or before it is queued). */
  queued?: 'urgent' | 'background' | undefined;
  start(): Promise<void>;
}

class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) {
      return undefined;
    }
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head += 1;
    // Compact now and then so a long-lived queue does not keep its consumed slots.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

export class CallLimiter {
  private active = 0;
  private readonly urgent = new Fifo<LimitedCall>();
  private readonly background = new Fifo<LimitedCall>();

  constructor(readonly concurrency: number) {}

  /** Queues `call` (or, when it already waits in the background queue, moves it to the front). */
  submit(call: LimitedCall, urgent: boolean): void {
    if (call.queued === 'urgent' || (call.queued === 'background' && !urgent)) {
      return;
    }
    // A promoted call stays in the background queue too; the stale entry is skipped there.
    call.queued = urgent ? 'urgent' : 'background';
    (urgent ? this.urgent : this.background).push(call);
    this.pump();
  }

  get running(): number {
    return this.active;
  }

  private next(): LimitedCall | undefined {
    for (;;) {
      const call = this.urgent.shift() ?? this.background.shift();
      if (call === undefined) {
        return undefined;
      }
      // Skip the leftover background place of a call that was promoted (and has started).
      if (call.queued !== undefined) {
        call.queued = undefined;
        return call;
      }
    }
  }

  private pump(): void {
    while (this.active < this.concurrency) {
      const call = this.next();
      if (call === undefined) {
        return;
      }
      this.active += 1;
      call
        .start()
        .catch(() => undefined)
        .finally(() => {
          this.active -= 1;
          this.pump();
        });
    }
  }
}

/** `fn` over `items` with at most `limit` calls in flight; results in the items' order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
