/**
 * The fleet page's data calls beyond `/v1/fleet`, all behind the gateway token: every node's Stats
 * (spec §2.4: readings and their history) and starting or stopping one node. Start and stop do
 * what `svc fleet start|stop` does (the config the node's own Svcfile resolves to, with its engine
 * key), and the answer is recorded as the node's snapshot so the next `/v1/fleet` shows it. Thin on
 * purpose: every node kind answers through its driver (docs/design.md D21). Both are an operator's
 * acts, and a stop does not cut off requests this gateway has in flight on the node unless the
 * operator forces it (docs/design.md D28). A start goes through the scheduler like every other
 * (docs/design.md D33): in a full group it waits for an idle member's swap, or is refused 409
 * `group_busy` unless forced.
 */
import { closestName } from '../../core/closest-name.ts';
import { formatDurationText } from '../../core/duration.ts';
import type {
  NodeDriver,
  NodeReply,
  NodeSource,
  NodeStatus,
} from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { NodeInFlight } from '../../core/fleet/scheduling/requests/in-flight-of.ts';
import type { Scheduler } from '../../core/fleet/scheduling/scheduler.ts';
import { mapBounded } from '../../core/fleet/state/call-limiter.ts';
import { snapshotOf } from '../../core/fleet/state/node-snapshot.ts';
import type { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import type { CallerRights } from '../callers/caller-rights.ts';
import { type RequestCounts, withGatewayRequests } from '../metrics/request-counts.ts';
import { nodeStopped, type RelayCuts } from '../relay/relay-cuts.ts';

/** What node control needs of the gateway's view: the file's nodes, a node's source, its state. */
export type ControlView = Pick<FleetView, 'fleet' | 'source'> & {
  readonly states: Pick<FleetView['states'], 'now' | 'record'>;
};

/** Stats calls in flight at once: the page asks every few seconds, a fleet may be large. */
const STATS_CONCURRENCY = 16;

/**
 * The node calls the page needs: the driver's (docs/design.md D21), so every node kind answers
 * them.
 */
export type NodeControlClient = Pick<NodeDriver, 'status' | 'start' | 'stop' | 'stats'>;

/** `POST /v1/fleet/nodes/{name}/start|stop`: the name, then the action. */
const ACTION_PATH = /^\/v1\/fleet\/nodes\/([^/]+)\/(start|stop)$/;

/** `{name, action}` of `POST /v1/fleet/nodes/{name}/start|stop`, or undefined. */
export function nodeActionOf(
  path: string,
): { readonly name: string; readonly action: 'start' | 'stop' } | undefined {
  const match = ACTION_PATH.exec(path);
  if (match === null) {
    return undefined;
  }
  let name: string;
  try {
    name = decodeURIComponent(match[1] ?? '');
  } catch {
    return undefined;
  }
  return { name, action: match[2] === 'start' ? 'start' : 'stop' };
}

/** The node named in a node route's path, or a 404 naming the closest name and every node. */
export function nodeNamed(view: Pick<FleetView, 'fleet'>, name: string): FleetNode {
  const node = view.fleet.nodes.find((candidate) => candidate.name === name);
  if (node === undefined) {
    const names = view.fleet.nodes.map((candidate) => candidate.name);
    const near = closestName(name, names);
    throw new GatewayError(
      404,
      `no node "${name}" in ${view.fleet.path}${near === undefined ? '' : ` (did you mean "${near}"?)`}; its nodes: ${names.join(', ')}`,
    );
  }
  return node;
}

/** `GET /v1/fleet/stats`: each node's Stats, or why it has none, in fleet-file order. */
export async function fleetStats(
  view: Pick<FleetView, 'fleet'>,
  client: NodeControlClient,
  counts: Pick<RequestCounts, 'of'>,
): Promise<string> {
  const nodes = await mapBounded(view.fleet.nodes, STATS_CONCURRENCY, async (node) => {
    const reply = await client.stats(node);
    return reply.ok
      ? { name: node.name, stats: withGatewayRequests(node, reply.value, counts) }
      : { name: node.name, error: reply.detail };
  });
  return JSON.stringify({ nodes });
}

/** What node control needs of the gateway's scheduler (scheduling/gateway-scheduler.ts). */
export interface ControlScheduling {
  readonly scheduler: Pick<Scheduler, 'queuedFor' | 'inFlightOf'>;
  now(): number;
  /** The replies relayed through the gateway, which a forced stop ends first (relay-cuts.ts). */
  readonly relays: Pick<RelayCuts, 'cut'>;
  /** Runs `run` once the node's group has room (docs/design.md D33), or throws the 409 refusal. */
  startNode(
    name: string,
    force: boolean,
    run: () => Promise<NodeReply<NodeStatus>>,
  ): Promise<NodeReply<NodeStatus>>;
}

/** One `POST /v1/fleet/nodes/{name}/start|stop` as asked. */
export interface ControlAsk {
  readonly name: string;
  readonly action: 'start' | 'stop';
  /** What the caller's token may do (caller-rights.ts). */
  readonly rights: CallerRights;
  /** The `force` query parameter as given; absent when not given. */
  readonly force?: string | null;
}

/**
 * `?force=`: `true` stops a busy node anyway (a stop), or the busy member holding the node's
 * group (a start, docs/design.md D33); `false` or none does not; anything else is refused.
 */
function forced(force: string | null | undefined): boolean {
  if (force === undefined || force === null || force === 'false') {
    return false;
  }
  if (force === 'true') {
    return true;
  }
  throw new GatewayError(400, `force must be true or false, not ${JSON.stringify(force)}`);
}

/** `2 for qwen, 1 for gemma`. */
function modelsText(models: NodeInFlight['models']): string {
  return Array.from(models, ([model, count]) => `${count} for ${model}`).join(', ');
}

/**
 * docs/design.md D28: the 409 for a stop that would cut off requests in flight or queued, naming
 * them.
 */
function busyRefusal(name: string, busy: NodeInFlight | undefined, queued: number): GatewayError {
  const parts: string[] = [];
  if (busy !== undefined) {
    const requests = busy.count === 1 ? '1 request' : `${busy.count} requests`;
    parts.push(
      `${requests} in flight through this gateway (${modelsText(busy.models)}; the oldest has run ${formatDurationText(busy.oldestMs)})`,
    );
  }
  if (queued > 0) {
    parts.push(`${queued === 1 ? '1 request' : `${queued} requests`} queued here for its models`);
  }
  return new GatewayError(
    409,
    `node "${name}" has ${parts.join(' and ')}: stopping it would cut them off; stop it once they end, or stop it anyway with ?force=true`,
    { code: 'node_busy' },
  );
}

/** `POST /v1/fleet/nodes/{name}/start|stop`: the node's new status, or a refusal naming it. */
export async function controlNode(
  view: ControlView,
  client: NodeControlClient,
  /**
   * The scheduler: requests in flight and queued here for the node (docs/design.md D25: the
   * scheduler's counts), and the way every start goes (docs/design.md D33).
   */
  scheduling: ControlScheduling,
  ask: ControlAsk,
): Promise<string> {
  const { name, action } = ask;
  if (ask.rights !== 'operate') {
    // docs/design.md D28: the gateway token alone may use the fleet, not start or stop it.
    throw new GatewayError(
      403,
      `starting and stopping nodes needs the operator token (the fleet file's gateway.operatorTokenEnv); this token may use models and read the fleet`,
      { code: 'insufficient_permissions' },
    );
  }
  const node = nodeNamed(view, name);
  const force = forced(ask.force);
  const askedAt = view.states.now();
  let reply: NodeReply<NodeStatus>;
  if (action === 'start') {
    let source: NodeSource;
    try {
      source = await view.source(node);
    } catch (error) {
      throw new GatewayError(502, `node "${name}": ${(error as Error).message}`, {
        code: 'upstream_error',
      });
    }
    reply = await scheduling.startNode(name, force, async () => {
      const started = await client.start(node, source);
      // Already running: starting is idempotent, as `svc fleet start` is; report what runs.
      return !started.ok && started.status === 409 ? client.status(node) : started;
    });
  } else {
    const { scheduler } = scheduling;
    const busy = scheduler.inFlightOf(node.name, scheduling.now());
    const queued = scheduler.queuedFor(node.name);
    if ((busy !== undefined || queued > 0) && !force) {
      throw busyRefusal(name, busy, queued);
    }
    if (force) {
      // docs/design.md D33: the streams it cuts say why before they close. Not awaited: the
      // callers' connections outlive the engine, and one that reads nothing must not hold the stop.
      void scheduling.relays.cut(nodeStopped(name), name);
    }
    reply = await client.stop(node, force ? { force } : {});
  }
  if (!reply.ok) {
    throw new GatewayError(502, `node "${name}" refused to ${action}: ${reply.detail}`, {
      code: 'upstream_error',
    });
  }
  view.states.record(snapshotOf(node, reply), askedAt);
  return JSON.stringify({ name, ...reply.value });
}
