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
    // route.ts: only an explicit `not-ready` is loading; a daemon that predates readiness is ready.
    ready: running && status.ready !== 'not-ready',
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
