/**
 * What every node is doing now: one concurrent fan-out of GET /v1/status (5 s per node), reused
 * for a short window so a burst of requests costs one fan-out; and what each stopped node would
 * start with, read from its Svcfile source at most once per window (spec §4.2 rule 1).
 */
import type { StatusResponse } from '../core/contract/schemas.ts';
import type { Fleet, FleetNode, Variables } from './fleet-file.ts';
import { modelNameOf, type NodeSource, nodeSourceConfig } from './load-fleet.ts';
import { type NodeOutcome, nodeStatus } from './node-client.ts';

export type NodeSnapshot =
  | { readonly node: FleetNode; readonly ok: true; readonly status: StatusResponse }
  | {
      readonly node: FleetNode;
      readonly ok: false;
      readonly outcome: NodeOutcome;
      readonly detail: string;
    };

const STATUS_TTL_MS = 2_000;
const SOURCE_TTL_MS = 30_000;

export class FleetView {
  private statuses: { at: number; snapshots: Promise<NodeSnapshot[]> } | undefined;
  private readonly sources = new Map<string, { at: number; source: Promise<NodeSource> }>();
  /** Routing decisions for the current snapshots: the same inputs give the same decision. */
  private decisions = new WeakMap<readonly NodeSnapshot[], Map<string, unknown>>();

  constructor(
    readonly fleet: Fleet,
    private readonly context: { configDir: string; env: Variables },
  ) {}

  /** Node statuses, fresh within the window; `fresh` forces a new fan-out (after a wake). */
  snapshots(fresh = false): Promise<NodeSnapshot[]> {
    const now = Date.now();
    if (fresh || this.statuses === undefined || now - this.statuses.at > STATUS_TTL_MS) {
      const snapshots = Promise.all(
        this.fleet.nodes.map(async (node): Promise<NodeSnapshot> => {
          const reply = await nodeStatus(node);
          return reply.ok
            ? { node, ok: true, status: reply.value }
            : { node, ok: false, outcome: reply.outcome, detail: reply.detail };
        }),
      );
      this.statuses = { at: now, snapshots };
    }
    return this.statuses.snapshots;
  }

  /** `decide(model, snapshots)` computed once per model for each set of snapshots (the hot path). */
  decide<T>(
    model: string,
    snapshots: readonly NodeSnapshot[],
    decide: (model: string, snapshots: readonly NodeSnapshot[], fleet: Fleet) => T,
  ): T {
    let byModel = this.decisions.get(snapshots);
    if (byModel === undefined) {
      byModel = new Map();
      this.decisions.set(snapshots, byModel);
    }
    if (!byModel.has(model)) {
      byModel.set(model, decide(model, snapshots, this.fleet));
    }
    return byModel.get(model) as T;
  }

  /** The node's Svcfile source, read at most once per window (a failure is cached too). */
  source(node: FleetNode): Promise<NodeSource> {
    const now = Date.now();
    const cached = this.sources.get(node.name);
    if (cached !== undefined && now - cached.at <= SOURCE_TTL_MS) {
      return cached.source;
    }
    const source = nodeSourceConfig(this.fleet, node, this.context);
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
