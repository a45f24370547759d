/**
 * The scheduler's views of the nodes (docs/design.md D25, D26), kept current from the snapshots the
 * gateway stores anyway (node-states.ts): each stored snapshot becomes a NodeView with what a wake
 * of the node would start (spec §4.2 rule 5: what its own source describes, and whether it is
 * warm).
 *
 * The source is read only for a node that is not running, through the view's cached reads (once
 * per window), so the hot path never waits on it: a running node's view goes out at once with the
 * facts last known for it. A request that nothing running serves waits for `settled()`, so it is
 * never refused for a wake fact still being read.
 */
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { NodeView } from '../../core/fleet/scheduling/types.ts';
import {
  asleepOrAsIs,
  viewOfSnapshot,
  type WakeFacts,
  wakeFactsFrom,
} from '../../core/fleet/scheduling/view-of-snapshot.ts';
import type { FleetView, NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';

/** What a wake would start, from the node's source read through the view's cache. */
export async function wakeFactsOf(
  view: Pick<FleetView, 'source'>,
  node: FleetNode,
  reportedModel: string | undefined,
): Promise<WakeFacts> {
  try {
    return wakeFactsFrom(node, reportedModel, await view.source(node));
  } catch (error) {
    return wakeFactsFrom(node, reportedModel, { problem: (error as Error).message });
  }
}

export class SchedulerViews {
  private readonly facts = new Map<string, WakeFacts>();
  private readonly reading = new Set<Promise<void>>();
  /** Nodes whose last stored snapshot had them running. */
  private readonly up = new Set<string>();

  private readonly fleetPath: string;

  constructor(
    private readonly view: Pick<FleetView, 'source' | 'fleet'>,
    private readonly feed: (views: readonly NodeView[]) => void,
  ) {
    this.fleetPath = view.fleet.path;
  }

  /** A snapshot was stored (node-states.ts onSnapshot), asked at `askedAt`. */
  stored(snapshot: NodeSnapshot, askedAt: number): void {
    const node = snapshot.node;
    const running = snapshot.ok && snapshot.status.state === 'running';
    const known = this.facts.get(node.name);
    const wasUp = this.up.has(node.name);
    if (running) {
      this.up.add(node.name);
    } else {
      this.up.delete(node.name);
    }
    if (running && known !== undefined) {
      this.feed([viewOfSnapshot(snapshot, askedAt, known, this.fleetPath)]);
      return;
    }
    if (running) {
      // Fed now; its wake facts are read for the views after this one (a stop of ours keeps them).
      this.feed([viewOfSnapshot(snapshot, askedAt, {}, this.fleetPath)]);
    }
    // Gone down (the reply to our own `POST /v1/fleet/nodes/<n>/stop` is stored at once,
    // docs/design.md D28): out of placement now, with the wake facts known for it, so a request
    // arriving while its source is read again wakes it rather than reaching the stopped engine.
    // The facts read below reach the scheduler with its next snapshot (one at the same time is
    // not taken twice).
    const early = !running && wasUp && known !== undefined;
    if (early) {
      this.feed([asleepOrAsIs(node, viewOfSnapshot(snapshot, askedAt, known, this.fleetPath))]);
    }
    const reported = snapshot.ok ? snapshot.status.model : undefined;
    const reading = wakeFactsOf(this.view, node, reported).then((read) => {
      // A machine asleep keeps what it was last known to wake into, should its source fail now.
      const facts = !snapshot.ok && (read.wakes ?? []).length === 0 ? (known ?? read) : read;
      this.facts.set(node.name, facts);
      if (!running && !early) {
        this.feed([asleepOrAsIs(node, viewOfSnapshot(snapshot, askedAt, facts, this.fleetPath))]);
      }
    });
    this.reading.add(reading);
    void reading.finally(() => this.reading.delete(reading));
  }

  /**
   * The view of a snapshot at `observedAt` with the wake facts last known for the node: a view our
   * own wake ends with must keep them, or a stop of ours later would leave it wakeable for nothing.
   */
  viewAt(snapshot: NodeSnapshot, observedAt: number): NodeView {
    const facts = this.facts.get(snapshot.node.name);
    return asleepOrAsIs(snapshot.node, viewOfSnapshot(snapshot, observedAt, facts, this.fleetPath));
  }

  /** No wake fact is being read: `settled()` would resolve at once. */
  isSettled(): boolean {
    return this.reading.size === 0;
  }

  /** Resolves once every wake fact being read has been fed. */
  async settled(): Promise<void> {
    while (this.reading.size > 0) {
      await Promise.all(this.reading);
    }
  }
}
