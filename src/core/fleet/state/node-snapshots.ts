/**
 * The fleet as the gateway sees it: node snapshots from the state holder (node-states.ts), replies
 * built once per set of snapshots, and what each stopped node would start with, read from its
 * Svcfile source at most once per window (spec §4.2 rule 1). Where a request goes is the
 * scheduler's alone (docs/design.md D33): this layer only hands snapshots over.
 */
import type { NodeDriver, NodeSource } from '../drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../file/fleet-file.ts';
import { modelNameOf } from '../file/model-name.ts';
import type { NodeSnapshot } from './node-snapshot.ts';
import type { NodeStates } from './node-states.ts';

export type { NodeSnapshot } from './node-snapshot.ts';

const SOURCE_TTL_MS = 30_000;

export class FleetView {
  private readonly sources = new Map<string, { at: number; source: Promise<NodeSource> }>();
  /** Replies computed from one set of snapshots (/v1/models, /v1/fleet), reused while it holds. */
  private replies = new WeakMap<readonly NodeSnapshot[], Map<string, Promise<unknown>>>();

  constructor(
    readonly fleet: Fleet,
    readonly states: NodeStates,
    private readonly driver: Pick<NodeDriver, 'wakeSource'>,
  ) {}

  /** Every node's snapshot (for /v1/models and /v1/fleet): waits only for nodes not fresh. */
  async all(): Promise<readonly NodeSnapshot[]> {
    this.states.use();
    const state = this.states.current();
    if (state.pending.length === 0) {
      return state.snapshots;
    }
    await this.states.until(state.pending, []);
    // Each pending node has answered or timed out since; a stale one is still listed as it was.
    return this.fleet.nodes.flatMap((node) => {
      const last = this.states.last(node);
      return last === undefined ? [] : [last];
    });
  }

  /**
   * `compute(snapshots)` once per set of snapshots and `key`: a reply body built from them (or
   * what several bodies share, such as the model entries behind /v1/models and /v1/models/{id}).
   * Each key has one result type, chosen by its callers.
   */
  reply<T>(
    key: string,
    snapshots: readonly NodeSnapshot[],
    compute: (snapshots: readonly NodeSnapshot[]) => Promise<T>,
  ): Promise<T> {
    let byKey = this.replies.get(snapshots);
    if (byKey === undefined) {
      byKey = new Map();
      this.replies.set(snapshots, byKey);
    }
    let body = byKey.get(key) as Promise<T> | undefined;
    if (body === undefined) {
      body = compute(snapshots);
      byKey.set(key, body);
      // A failure is not kept: the next call computes again.
      body.catch(() => byKey.delete(key));
    }
    return body;
  }

  /**
   * What a wake would start on the node (its driver's answer: a daemon's Svcfile source, a remote
   * environment's deployed config), read at most once per window (a failure is cached too).
   */
  source(node: FleetNode): Promise<NodeSource> {
    const now = Date.now();
    const cached = this.sources.get(node.name);
    if (cached !== undefined && now - cached.at <= SOURCE_TTL_MS) {
      return cached.source;
    }
    const source = this.driver.wakeSource(node);
    source.catch(() => undefined);
    this.sources.set(node.name, { at: now, source });
    return source;
  }

  /** The model name a stopped, wakeable node would serve, or undefined. */
  async wakeableModel(node: FleetNode): Promise<string | undefined> {
    if (node.wake === 'off') {
      return undefined;
    }
    try {
      const { config } = await this.source(node);
      return modelNameOf(config);
    } catch {
      return undefined;
    }
  }
}
