/**
 * One node's snapshot (its status reply, or why there is none) and the settings of the state
 * holder that keeps them (node-states.ts).
 */
import type { Clock } from '../../clock.ts';
import type { NodeDriver, NodeOutcome, NodeReply, NodeStatus } from '../drivers/node-driver.ts';
import type { FleetNode } from '../file/fleet-file.ts';

export type NodeSnapshot =
  | { readonly node: FleetNode; readonly ok: true; readonly status: NodeStatus }
  | {
      readonly node: FleetNode;
      readonly ok: false;
      readonly outcome: NodeOutcome;
      readonly detail: string;
    };

export interface NodeStatesOptions {
  readonly client: Pick<NodeDriver, 'status'>;
  readonly now: Clock;
  readonly sleep: (ms: number) => Promise<void>;
  /** How often each node is asked while the gateway is in use (at most once per period). */
  readonly refreshMs: number;
  /** A snapshot older than this is not routed from until the node answers again. */
  readonly staleMs: number;
  /** No request for this long: the gateway is idle and asks no node anything. */
  readonly idleAfterMs: number;
  /** One status call's bound; a node that takes longer is `unreachable`. */
  readonly timeoutMs: number;
  /** Status calls in flight at once, over the whole fleet. */
  readonly concurrency: number;
  /** How often the background loop looks for nodes due a refresh. */
  readonly tickMs: number;
  /**
   * Background status calls per second over the whole fleet, at most: past `rate × refresh`
   * nodes the period stretches with the fleet (and the stale bound with it) rather than the
   * gateway spending its event loop on status replies. Nodes requests were routed to keep the
   * short period.
   */
  readonly maxStatusPerSecond: number;
}

/** The defaults the gateway runs with (docs/gateway.md, measured in docs/benchmarks.md). */
export const NODE_STATES_DEFAULTS = {
  refreshMs: 2_000,
  staleMs: 15_000,
  idleAfterMs: 30_000,
  concurrency: 64,
  // Short ticks keep each tick's share of the fleet a small burst (5 calls at 1,000 nodes), so a
  // request never queues behind a score of status replies on the shared event loop.
  tickMs: 25,
  maxStatusPerSecond: 200,
} as const;

export interface CurrentState {
  /** Snapshots asked for within the stale bound, in fleet-file order. */
  readonly snapshots: readonly NodeSnapshot[];
  /** Nodes with no snapshot yet, or only a stale one. */
  readonly pending: readonly FleetNode[];
}

export function snapshotOf(node: FleetNode, reply: NodeReply<NodeStatus>): NodeSnapshot {
  return reply.ok
    ? { node, ok: true, status: reply.value }
    : { node, ok: false, outcome: reply.outcome, detail: reply.detail };
}
