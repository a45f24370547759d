/**
 * A node snapshot as the scheduler sees it (types.ts NodeView), pure. The gateway already holds
 * snapshots (state/node-snapshot.ts) and knows, from the sources it reads for `/v1/models`, what a
 * wake of each node would start; this joins the two with the time the status was asked.
 *
 * - A node that did not answer is `unreachable`: not routed to, not woken, not counted in a group.
 * - `running` serves its served name and its model id (spec §4.2 rule 1), unless its engine is
 *   loopback-only with no override (GUIDE D15): it then serves nothing here, and the gateway keeps
 *   route.ts's refusal that names it.
 * - A control plane's words (spec §2.1 passes them through): `pending` and other words of a start
 *   under way are `starting`, `stopping` is itself, and every other state that is not `running`
 *   is `stopped`, as a wake reads them today.
 * - `runningSince` comes from `uptimeSeconds`; `slots` and `busy` (GUIDE D25) where reported.
 * - Ready when its engine answered its health check; a status that says nothing of readiness is
 *   ready only once the engine has run past the daemon's first check (GUIDE D13: a request must
 *   never reach an engine that is still opening its port).
 */
import { loopbackOnly } from '../routing/route.ts';
import type { NodeSnapshot } from '../state/node-snapshot.ts';
import type { NodeCondition, NodeView } from './types.ts';

/** What a wake of the node would start: the names it would answer to, and whether it is warm. */
export interface WakeFacts {
  readonly wakes?: readonly string[];
  readonly warm?: boolean;
}

const STARTING = new Set(['pending', 'starting', 'booting', 'deploying']);

/**
 * A daemon reports readiness from its first sampler tick after a start; only one that still has
 * not after this long predates the check (and is then taken as ready, as spec §2.1 allows).
 */
export const TRUST_READINESS_MS = 3_000;

/** Ready: its engine said so, or a daemon that predates readiness has run long enough. */
function readyOf(status: { readonly ready?: string; readonly uptimeSeconds?: number }): boolean {
  if (status.ready !== undefined) {
    return status.ready === 'ready';
  }
  return status.uptimeSeconds === undefined || status.uptimeSeconds * 1_000 >= TRUST_READINESS_MS;
}

function conditionOf(state: string): NodeCondition {
  if (state === 'running' || state === 'stopping') {
    return state;
  }
  return STARTING.has(state) ? 'starting' : 'stopped';
}

/**
 * A count from the status (GUIDE D25 `slots`, `busy`): a whole number ≥ 0, else absent. A node's
 * reply is not checked against the schema on the way in, so a control plane's odd value is dropped.
 */
function countOf(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

export function viewOfSnapshot(
  snapshot: NodeSnapshot,
  observedAt: number,
  wake: WakeFacts = {},
): NodeView {
  const facts = {
    ...(wake.wakes === undefined ? {} : { wakes: wake.wakes }),
    ...(wake.warm === undefined ? {} : { warm: wake.warm }),
  };
  const name = snapshot.node.name;
  if (!snapshot.ok) {
    return { name, observedAt, state: 'unreachable', ready: false, serves: [], ...facts };
  }
  const status = snapshot.status;
  const state = conditionOf(status.state);
  const running = state === 'running';
  const serves =
    running && !loopbackOnly(snapshot)
      ? [status.servedName, status.model].filter((entry): entry is string => entry !== undefined)
      : [];
  const slots = running ? countOf(status.slots) : undefined;
  const busy = running ? countOf(status.busy) : undefined;
  const lastActiveAt =
    status.lastActiveAt === undefined ? Number.NaN : Date.parse(status.lastActiveAt);
  return {
    name,
    observedAt,
    state,
    ready: running && readyOf(status),
    serves,
    ...(slots === undefined || slots === 0 ? {} : { slots }),
    ...(busy === undefined ? {} : { busy }),
    ...(Number.isFinite(lastActiveAt) ? { lastActiveAt } : {}),
    ...(running && status.uptimeSeconds !== undefined
      ? { runningSince: observedAt - status.uptimeSeconds * 1_000 }
      : {}),
    ...facts,
  };
}
