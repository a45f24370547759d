/**
 * The `/v1/fleet` body (spec §4.2 rule 6), pure: each node's name, kind, tags, group and state,
 * what a running node serves, readiness, last activity, its reported capacity, and for a node not
 * running the model a request would start it with, and a running local node's engine port and
 * path (docs/design.md D33); the file's wake, prefer and concurrency
 * settings, each absent where the file declares none. A node that did not answer stands in its
 * place with the reason. With the scheduler's readout (docs/design.md D25, D26) each node also
 * carries this gateway's requests on it and, while it runs under idle stop, when it will be
 * stopped; and the reply how many requests wait for each model, absent while none do. A local node
 * whose next start would fail (its Svcfile, its model file) carries why as `problems`
 * (node-problems.ts).
 */
import type { Fleet } from '../../core/fleet/file/fleet-file.ts';
import { capacityOf, declaredGroup } from '../../core/fleet/state/capacity.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import { futureOnly } from '../../core/remote/replies.ts';
import type { SchedulingReadout } from '../metrics/scheduling-readout.ts';

/** docs/design.md D25 `queued`: the models with requests waiting, or undefined when none wait. */
function queuedOf(scheduling: SchedulingReadout | undefined): Record<string, number> | undefined {
  const waiting = [...(scheduling?.queued() ?? [])].filter(([, count]) => count > 0);
  return waiting.length === 0 ? undefined : Object.fromEntries(waiting);
}

/**
 * docs/design.md D26 `idleStopAt` as RFC 3339, for a running node the scheduler will stop when
 * idle.
 */
function idleStopText(
  scheduling: SchedulingReadout | undefined,
  node: string,
  running: boolean,
): string | undefined {
  const at = running ? scheduling?.idleStopAt(node) : undefined;
  return at === undefined || !Number.isFinite(at) ? undefined : new Date(at).toISOString();
}

/** Why a node's next start would fail, by node name (node-problems.ts); absent where none. */
export type NodeProblems = ReadonlyMap<string, readonly string[]>;

/** The node's fields from the file and its snapshot: what a set of snapshots fixes. */
function nodeEntry(
  snapshot: NodeSnapshot,
  wakeable: ReadonlyMap<string, string>,
  now: number,
  problems: NodeProblems,
): Record<string, unknown> {
  const name = snapshot.node.name;
  const group = declaredGroup(snapshot.node);
  const problem = problems.get(name);
  const base = {
    name,
    kind: snapshot.node.kind,
    ...(snapshot.node.tags ? { tags: snapshot.node.tags } : {}),
    // docs/design.md D26: as declared in the fleet file, whatever the node's state.
    ...(group === undefined ? {} : { group }),
    ...(problem === undefined ? {} : { problems: problem }),
  };
  if (snapshot.node.kind === 'upstream') {
    return { ...base, ...upstreamFields(snapshot) };
  }
  if (!snapshot.ok) {
    return { ...base, state: snapshot.outcome, detail: snapshot.detail };
  }
  const { status } = snapshot;
  const running = status.state === 'running';
  const retainUntil = futureOnly(status.retainUntil, now);
  const wakeableModel = running ? undefined : wakeable.get(name);
  return {
    ...base,
    state: status.state,
    // A stopped daemon's status keeps its last model; it serves nothing, and its
    // wakeableModel says what a request would start.
    ...(!running || status.model === undefined ? {} : { model: status.model }),
    ...(!running || status.servedName === undefined ? {} : { servedName: status.servedName }),
    ...(status.ready === undefined ? {} : { ready: status.ready }),
    ...(status.lastActiveAt === undefined ? {} : { lastActiveAt: status.lastActiveAt }),
    // spec §2.4: a remote environment's retention deadline, only while in the future.
    ...(retainUntil === undefined ? {} : { retainUntil }),
    ...(wakeableModel === undefined ? {} : { wakeableModel }),
    // A stopped engine has no slots in use or to offer: what its status keeps is stale.
    ...(running ? capacityOf(status) : {}),
    ...localEngine(snapshot.node.kind, running, status.engine),
  };
}

/**
 * docs/design.md D30: an upstream node's state (`running` while it answers, else `unreachable`,
 * with why) and the names it serves; never its key, nor an
 * engine, which svc does not run for it.
 */
function upstreamFields(snapshot: NodeSnapshot): Record<string, unknown> {
  const models = snapshot.node.kind === 'upstream' ? Object.keys(snapshot.node.models) : [];
  const answers = snapshot.ok && snapshot.status.state === 'running';
  return {
    state: answers ? 'running' : 'unreachable',
    models,
    ...(snapshot.ok ? {} : { detail: snapshot.detail }),
  };
}

/**
 * docs/design.md D33: a running local node's engine port (often one the gateway chose) and path, so
 * `svc fleet route` and `svc code --node` reach it from outside; a daemon publishes its own.
 */
function localEngine(
  kind: string,
  running: boolean,
  engine: { readonly port?: number; readonly path?: string } | undefined,
): { engine?: { port: number; path: string } } {
  return kind === 'local' && running && engine?.port !== undefined
    ? { engine: { port: engine.port, path: engine.path ?? '/v1' } }
    : {};
}

/** The fields the scheduler adds to a node's entry, last in it (docs/design.md D25, D26). */
function schedulingFields(
  snapshot: NodeSnapshot,
  scheduling: SchedulingReadout | undefined,
): { inFlight?: number; idleStopAt?: string } {
  if (scheduling === undefined) {
    return {};
  }
  const name = snapshot.node.name;
  const running = snapshot.ok && snapshot.status.state === 'running';
  const idleStopAt = idleStopText(scheduling, name, running);
  // docs/design.md D25: this gateway's own count, known whether or not the node answers.
  return {
    inFlight: scheduling.inFlight(name),
    ...(idleStopAt === undefined ? {} : { idleStopAt }),
  };
}

function settingsOf(
  fleet: Pick<Fleet, 'wake' | 'prefer' | 'concurrency'>,
): Record<string, unknown> {
  return {
    ...(fleet.wake === undefined ? {} : { wake: fleet.wake === 'on' }),
    ...(fleet.prefer === undefined ? {} : { prefer: fleet.prefer }),
    ...(fleet.concurrency === undefined ? {} : { concurrency: fleet.concurrency }),
  };
}

/**
 * `wakeable` maps a stopped node's name to the model a request would wake it with; without
 * `scheduling` (a caller with no scheduler) its fields are absent, as anything unknown is.
 */
export function fleetReply(
  fleet: Pick<Fleet, 'wake' | 'prefer' | 'concurrency'>,
  snapshots: readonly NodeSnapshot[],
  wakeable: ReadonlyMap<string, string>,
  now: number,
  scheduling?: SchedulingReadout,
  problems: NodeProblems = new Map(),
): Record<string, unknown> {
  const queued = queuedOf(scheduling);
  return {
    ...settingsOf(fleet),
    ...(queued === undefined ? {} : { queued }),
    nodes: snapshots.map((snapshot) => ({
      ...nodeEntry(snapshot, wakeable, now, problems),
      ...schedulingFields(snapshot, scheduling),
    })),
  };
}

/**
 * fleetReply's text, in two steps for a large fleet: what a set of snapshots fixes, serialised once
 * per set (each node's entry without its closing brace), then the scheduler's fields, which move
 * between refreshes, added on each call without serialising the rest again.
 */
export interface FleetParts {
  readonly settings: string;
  readonly nodes: readonly string[];
}

export function fleetParts(
  fleet: Pick<Fleet, 'wake' | 'prefer' | 'concurrency'>,
  snapshots: readonly NodeSnapshot[],
  wakeable: ReadonlyMap<string, string>,
  now: number,
  problems: NodeProblems = new Map(),
): FleetParts {
  const settings = JSON.stringify(settingsOf(fleet)).slice(1, -1);
  return {
    settings: settings === '' ? '' : `${settings},`,
    nodes: snapshots.map((snapshot) =>
      JSON.stringify(nodeEntry(snapshot, wakeable, now, problems)).slice(0, -1),
    ),
  };
}

/** The `/v1/fleet` body from `fleetParts` of the same snapshots: equal to fleetReply's JSON. */
export function fleetBody(
  parts: FleetParts,
  snapshots: readonly NodeSnapshot[],
  scheduling?: SchedulingReadout,
): string {
  const queued = queuedOf(scheduling);
  // Written by hand, not serialised: a number and an RFC 3339 time need no escaping, and this
  // runs per node on every call.
  const nodes = snapshots.map((snapshot, index) => {
    const base = parts.nodes[index] ?? '{';
    if (scheduling === undefined) {
      return `${base}}`;
    }
    const name = snapshot.node.name;
    const running = snapshot.ok && snapshot.status.state === 'running';
    const idleStopAt = idleStopText(scheduling, name, running);
    const idle = idleStopAt === undefined ? '' : `,"idleStopAt":"${idleStopAt}"`;
    return `${base},"inFlight":${String(scheduling.inFlight(name))}${idle}}`;
  });
  const waiting = queued === undefined ? '' : `"queued":${JSON.stringify(queued)},`;
  return `{${parts.settings}${waiting}"nodes":[${nodes.join(',')}]}`;
}
