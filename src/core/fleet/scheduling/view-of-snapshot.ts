/**
 * A node snapshot as the scheduler sees it (types.ts NodeView), pure. The gateway already holds
 * snapshots (state/node-snapshot.ts) and knows, from the sources it reads for `/v1/models`, what a
 * wake of each node would start; this joins the two with the time the status was asked.
 *
 * - A node that did not answer is `unreachable`: not routed to, not woken, not counted in a group.
 * - `running` serves its served name, its model id (spec §4.2 rule 1) and its aliases
 *   (docs/design.md D31), unless its engine is
 *   loopback-only with no override (docs/design.md D15): it then serves nothing here, and its view
 *   says why (`unusable`), which the refusal names.
 * - A control plane's words (spec §2.1 passes them through): `pending` and other words of a start
 *   under way are `starting`, `stopping` is itself, and every other state that is not `running`
 *   is `stopped`, as a wake reads them today.
 * - `runningSince` comes from `uptimeSeconds`; `slots` and `busy` (docs/design.md D25) where
 *   reported, `slots` capped by the node's own (docs/design.md D31).
 * - Ready when its engine answered its health check; a status that says nothing of readiness is
 *   ready only once the engine has run past the daemon's first check (docs/design.md D13: a request
 *   must never reach an engine that is still opening its port).
 */
import type { FleetNode } from '../file/fleet-file.ts';
import { type NodeConfig, reportedModelOf } from '../file/model-name.ts';
import { loopbackOnly, loopbackText } from '../routing/engine-target.ts';
import type { NodeSnapshot } from '../state/node-snapshot.ts';
import { cappedSlots } from './requests/slots.ts';
import type { NodeCondition, NodeView } from './types.ts';

/** What a wake of the node would start: the names it would answer to, and whether it is warm. */
export interface WakeFacts {
  readonly wakes?: readonly string[];
  readonly warm?: boolean;
  /** What its source describes while its wake is off, and why its source could not be read. */
  readonly wakeOff?: readonly string[];
  readonly sourceProblem?: string;
}

/**
 * What a wake would start, from the node's source (spec §4.2 rule 5): the names it would answer
 * to, and whether its stored config already matches; none when its wake is off (what the source
 * describes is kept apart, so a refusal can name the node to start by hand) or the source could
 * not be read (why).
 */
export function wakeFactsFrom(
  node: Pick<FleetNode, 'wake' | 'aliases'>,
  reportedModel: string | undefined,
  source: { readonly config: NodeConfig } | { readonly problem: string },
): WakeFacts {
  if ('problem' in source) {
    return { wakes: [], sourceProblem: source.problem };
  }
  const id = reportedModelOf(source.config);
  // docs/design.md D31: a node answers to its aliases wherever it answers to its served name.
  const names = [source.config.servedModelName, id, ...(node.aliases ?? [])].filter(
    (name): name is string => name !== undefined && name !== '',
  );
  return node.wake === 'off'
    ? { wakes: [], wakeOff: names }
    : { wakes: names, warm: reportedModel === id };
}

/**
 * docs/design.md D26: a node whose daemon does not answer but that names a wake command is a
 * machine asleep: stopped as far as the scheduler knows, and woken by running the command first.
 */
export function asleepOrAsIs(node: Pick<FleetNode, 'wakeCommand'>, view: NodeView): NodeView {
  return view.state === 'unreachable' && node.wakeCommand !== undefined
    ? { ...view, state: 'stopped' }
    : view;
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
 * A count from the status (docs/design.md D25 `slots`, `busy`): a whole number ≥ 0, else absent. A
 * node's reply is not checked against the schema on the way in, so a control plane's odd value is
 * dropped.
 */
function countOf(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

export function viewOfSnapshot(
  snapshot: NodeSnapshot,
  observedAt: number,
  wake: WakeFacts = {},
  /** The fleet file, as an unusable engine's reason names it. */
  fleetPath = 'the fleet file',
): NodeView {
  const facts = {
    ...(wake.wakes === undefined ? {} : { wakes: wake.wakes }),
    ...(wake.warm === undefined ? {} : { warm: wake.warm }),
    ...(wake.wakeOff === undefined ? {} : { wakeOff: wake.wakeOff }),
    ...(wake.sourceProblem === undefined ? {} : { sourceProblem: wake.sourceProblem }),
  };
  const name = snapshot.node.name;
  const keeps = snapshot.node.keepCache === true;
  if (!snapshot.ok) {
    const detail = `${snapshot.outcome}: ${snapshot.detail}`;
    return {
      name,
      observedAt,
      state: 'unreachable',
      ready: false,
      serves: [],
      detail,
      ...facts,
      ...(keeps ? { keepsCache: true } : {}),
    };
  }
  const status = snapshot.status;
  const state = conditionOf(status.state);
  const running = state === 'running';
  const unusable = running && loopbackOnly(snapshot);
  const serves =
    running && !unusable
      ? [status.servedName, status.model, ...(snapshot.node.aliases ?? [])].filter(
          (entry): entry is string => entry !== undefined,
        )
      : [];
  const reported = countOf(status.slots);
  const slots = running
    ? cappedSlots(reported === 0 ? undefined : reported, snapshot.node.slots)
    : undefined;
  const busy = running ? countOf(status.busy) : undefined;
  // docs/design.md D32: a crashed engine saved nothing; a running one says what its start restored.
  const restored = running ? countOf(status.lastCacheRestore?.slots) : undefined;
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
    ...(unusable ? { unusable: loopbackText(snapshot.node, fleetPath) } : {}),
    ...facts,
    ...(keeps && status.state !== 'crashed' ? { keepsCache: true } : {}),
    ...(restored === undefined ? {} : { cacheRestored: restored }),
  };
}
