/**
 * What every node is doing, kept rather than fetched per request: one snapshot per node, each
 * refreshed on its own schedule in the background while the gateway is in use, through a bound
 * on concurrent calls, each call bounded by the node timeout. While the gateway is idle nothing is
 * asked; a request after a quiet spell refreshes only what it needs first.
 *
 * Requests read `current()` (the snapshots fresh within the stale bound) and, where that cannot
 * decide for them, `until()` the nodes that matter answer, never a round of the whole fleet. A
 * node that does not answer is marked by its own timeout and delays only the requests that wait
 * for it. Listeners hear each stored snapshot. Clock, sleep and node client are injected.
 */
import type { FleetNode } from '../file/fleet-file.ts';
import { CallLimiter, type LimitedCall } from './call-limiter.ts';
import {
  type CurrentState,
  type NodeSnapshot,
  type NodeStatesOptions,
  snapshotOf,
} from './node-snapshot.ts';

interface Entry extends LimitedCall {
  readonly node: FleetNode;
  snapshot?: NodeSnapshot;
  /** When the call behind `snapshot` was sent (its answer describes the node from then on). */
  askedAt: number;
  refreshing?: Promise<NodeSnapshot> | undefined;
  settle?: ((snapshot: NodeSnapshot) => void) | undefined;
}

/** How many ticks' share one late tick may make up (node-states loop). */
const CATCH_UP_TICKS = 4;

export class NodeStates {
  private readonly entries: Entry[];
  private readonly byName = new Map<string, Entry>();
  private readonly limiter: CallLimiter;
  private version = 0;
  private cached:
    { version: number; validUntil: number; builtAt: number; state: CurrentState } | undefined;
  private lastUsed = Number.NEGATIVE_INFINITY;
  /** Where the background loop's next round-robin scan starts. */
  private cursor = 0;
  private looping = false;
  private closed = false;

  /** Each node's background period: the refresh period, stretched for a large fleet. */
  readonly periodMs: number;
  /** Snapshots older than this are not routed from (at least the configured bound). */
  readonly staleMs: number;
  /** Nodes requests were routed to, and when: refreshed at the short period while in use. */
  private readonly hot = new Map<Entry, number>();
  private readonly listeners: ((snapshot: NodeSnapshot, askedAt: number) => void)[] = [];

  constructor(
    nodes: readonly FleetNode[],
    private readonly options: NodeStatesOptions,
  ) {
    this.limiter = new CallLimiter(options.concurrency);
    this.periodMs = Math.max(
      options.refreshMs,
      Math.ceil((nodes.length * 1000) / options.maxStatusPerSecond),
    );
    // A node answering normally is never stale between two of its refreshes, timeout included.
    this.staleMs = Math.max(options.staleMs, 2 * this.periodMs + options.timeoutMs);
    this.entries = nodes.map((node) => {
      const entry: Entry = {
        node,
        askedAt: Number.NEGATIVE_INFINITY,
        start: () => this.ask(entry),
      };
      this.byName.set(node.name, entry);
      return entry;
    });
  }

  /** A request arrived: keep (or start) refreshing in the background. */
  use(): void {
    this.lastUsed = this.options.now();
    if (!this.looping && !this.closed) {
      this.looping = true;
      void this.loop();
    }
  }

  /** Stops the background refresh (calls in flight finish on their own timeout). */
  close(): void {
    this.closed = true;
  }

  /** The snapshots a request may route from now, and the nodes it would have to wait for. */
  current(): CurrentState {
    return this.currentWithin(0);
  }

  /**
   * The same, but a view built within the last `maxAgeMs` will do even if answers arrived since:
   * rebuilding a large fleet's view (and re-routing over it) per request would cost each request
   * O(fleet), and a few tenths of a second of lag change nothing a poll every few seconds could.
   */
  currentWithin(maxAgeMs: number): CurrentState {
    const now = this.options.now();
    if (
      this.cached !== undefined &&
      now < this.cached.validUntil &&
      (this.cached.version === this.version || now - this.cached.builtAt < maxAgeMs)
    ) {
      return this.cached.state;
    }
    const snapshots: NodeSnapshot[] = [];
    const pending: FleetNode[] = [];
    let validUntil = Number.POSITIVE_INFINITY;
    for (const entry of this.entries) {
      const expires = entry.askedAt + this.staleMs;
      if (entry.snapshot !== undefined && now < expires) {
        snapshots.push(entry.snapshot);
        validUntil = Math.min(validUntil, expires);
      } else {
        pending.push(entry.node);
      }
    }
    const state = { snapshots, pending };
    this.cached = { version: this.version, validUntil, builtAt: now, state };
    return state;
  }

  /** Hears every snapshot stored from now on, whoever asked for it, with when it was asked. */
  onSnapshot(listener: (snapshot: NodeSnapshot, askedAt: number) => void): void {
    this.listeners.push(listener);
  }

  /** The holder's clock, for answers recorded from elsewhere. */
  now(): number {
    return this.options.now();
  }

  /** A request went to the node named: keep its state at the short period while in use. */
  routedTo(name: string): void {
    const entry = this.byName.get(name);
    if (entry !== undefined) {
      this.hot.set(entry, this.options.now());
    }
  }

  /** The node's last snapshot, however old (undefined before its first answer). */
  last(node: FleetNode): NodeSnapshot | undefined {
    return this.byName.get(node.name)?.snapshot;
  }

  /** Asks `node` now, ahead of background refreshes; joins a call already under way. */
  refresh(node: FleetNode, urgent = true): Promise<NodeSnapshot> {
    const entry = this.byName.get(node.name);
    if (entry === undefined) {
      return Promise.reject(new Error(`no node named "${node.name}" in the fleet`));
    }
    return this.refreshEntry(entry, urgent);
  }

  /**
   * Records an answer obtained elsewhere (a wake's own polling), unless a later one is kept; the
   * next request sees it at once, lag or not (a woken node is never routed from a view before it).
   */
  record(snapshot: NodeSnapshot, askedAt: number): void {
    if (this.store(snapshot, askedAt)) {
      this.cached = undefined;
    }
  }

  private store(snapshot: NodeSnapshot, askedAt: number): boolean {
    const entry = this.byName.get(snapshot.node.name);
    if (entry === undefined || askedAt < entry.askedAt) {
      return false;
    }
    entry.snapshot = snapshot;
    entry.askedAt = askedAt;
    // Views built before this snapshot are out of date.
    this.version += 1;
    for (const listener of this.listeners) {
      listener(snapshot, askedAt);
    }
    return true;
  }

  /**
   * Refreshes `nodes` (`first` ahead of the others) and resolves with the current state once one
   * of their answers passes `enough`, or every one of them has answered or timed out. The test
   * runs per answer, never over the whole fleet per answer: a cold fleet of 10,000 would
   * otherwise rebuild its view (and keep every rebuilt copy alive past a collection) 10,000 times.
   */
  until(
    nodes: readonly FleetNode[],
    first: readonly FleetNode[],
    enough: (answer: NodeSnapshot) => boolean = () => false,
  ): Promise<CurrentState> {
    const firstNames = new Set(first.map((node) => node.name));
    const ordered = [...first, ...nodes.filter((node) => !firstNames.has(node.name))];
    return new Promise((resolve) => {
      let left = ordered.length;
      let done = false;
      const answered = (answer?: NodeSnapshot): void => {
        left -= 1;
        if (!done && (left === 0 || (answer !== undefined && enough(answer)))) {
          done = true;
          resolve(this.current());
        }
      };
      if (left === 0) {
        resolve(this.current());
      }
      for (const node of ordered) {
        this.refresh(node, firstNames.has(node.name)).then(answered, () => {
          answered();
        });
      }
    });
  }

  private refreshEntry(entry: Entry, urgent: boolean): Promise<NodeSnapshot> {
    if (entry.refreshing === undefined) {
      entry.refreshing = new Promise<NodeSnapshot>((resolve) => {
        entry.settle = resolve;
      });
    }
    this.limiter.submit(entry, urgent);
    return entry.refreshing;
  }

  private async ask(entry: Entry): Promise<void> {
    const askedAt = this.options.now();
    let snapshot: NodeSnapshot;
    try {
      snapshot = snapshotOf(
        entry.node,
        await this.options.client.status(entry.node, this.options.timeoutMs),
      );
    } catch (error) {
      snapshot = {
        node: entry.node,
        ok: false,
        outcome: 'unreachable',
        detail: (error as Error).message,
      };
    }
    this.store(snapshot, askedAt);
    const settle = entry.settle;
    entry.refreshing = undefined;
    entry.settle = undefined;
    // A later answer already recorded (a wake's poll) is what the waiters get.
    settle?.(entry.snapshot ?? snapshot);
  }

  /**
   * Each tick asks the nodes requests were routed to when they are due at the short period, then
   * at most the share of the fleet one tick is owed, round-robin from where the last tick stopped:
   * the load on the nodes is a steady N per period, never a burst of the whole fleet at once
   * (which would stall the requests sharing this event loop).
   */
  private async loop(): Promise<void> {
    const { now, sleep, refreshMs, idleAfterMs, tickMs } = this.options;
    const perTick = Math.max(1, Math.ceil((this.entries.length * tickMs) / this.periodMs));
    // Each tick is owed at least its share, and more when its sleep ended late (a busy event
    // loop, a coarse timer): counted by ticks alone, the rate would fall below N per period and
    // snapshots would age. A late tick makes up for a few ticks at most, never a long stall.
    let owed = 0;
    let last = now();
    try {
      while (!this.closed && now() - this.lastUsed <= idleAfterMs) {
        const time = now();
        const byClock = ((time - last) * this.entries.length) / this.periodMs;
        owed = Math.min(owed + Math.max(perTick, byClock), CATCH_UP_TICKS * perTick);
        last = time;
        for (const [entry, routedAt] of this.hot) {
          if (time - routedAt > idleAfterMs) {
            this.hot.delete(entry);
          } else if (entry.refreshing === undefined && time - entry.askedAt >= refreshMs) {
            void this.refreshEntry(entry, false);
          }
        }
        let asked = 0;
        for (let seen = 0; seen < this.entries.length && asked + 1 <= owed; seen += 1) {
          const entry = this.entries[this.cursor];
          this.cursor = (this.cursor + 1) % this.entries.length;
          if (
            entry !== undefined &&
            entry.refreshing === undefined &&
            time - entry.askedAt >= this.periodMs
          ) {
            void this.refreshEntry(entry, false);
            asked += 1;
          }
        }
        // With none left due, what is owed is one tick's share at most: the next node that falls
        // due is asked at once, the rest at the steady rate.
        owed = asked + 1 <= owed ? Math.min(owed - asked, perTick) : owed - asked;
        await sleep(tickMs);
      }
    } finally {
      this.looping = false;
    }
  }
}
