/**
 * The fleet page's data calls beyond `/v1/fleet`, all behind the gateway token: every node's Stats
 * (spec §2.4: readings and their history) and starting or stopping one node. Start and stop do
 * what `svc fleet start|stop` does (the config the node's own Svcfile resolves to, with its engine
 * key), and the answer is recorded as the node's snapshot so the next `/v1/fleet` shows it. Thin on
 * purpose: every node kind answers through its driver (GUIDE D21).
 */
import { closestName } from '../../core/closest-name.ts';
import type { NodeDriver, NodeReply, NodeStatus } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { mapBounded } from '../../core/fleet/state/call-limiter.ts';
import { snapshotOf } from '../../core/fleet/state/node-snapshot.ts';
import type { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';

/** What node control needs of the gateway's view: the file's nodes, a node's source, its state. */
export type ControlView = Pick<FleetView, 'fleet' | 'source'> & {
  readonly states: Pick<FleetView['states'], 'now' | 'record'>;
};

/** Stats calls in flight at once: the page asks every few seconds, a fleet may be large. */
const STATS_CONCURRENCY = 16;

/** The node calls the page needs: the driver's (GUIDE D21), so every node kind answers them. */
export type NodeControlClient = Pick<NodeDriver, 'status' | 'start' | 'stop' | 'stats'>;

/** `POST /v1/fleet/nodes/{name}/start|stop`: the name, then the action. */
export const ACTION_PATH = /^\/v1\/fleet\/nodes\/([^/]+)\/(start|stop)$/;

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

function nodeNamed(view: Pick<FleetView, 'fleet'>, name: string): FleetNode {
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
): Promise<string> {
  const nodes = await mapBounded(view.fleet.nodes, STATS_CONCURRENCY, async (node) => {
    const reply = await client.stats(node);
    return reply.ok
      ? { name: node.name, stats: reply.value }
      : { name: node.name, error: reply.detail };
  });
  return JSON.stringify({ nodes });
}

/** `POST /v1/fleet/nodes/{name}/start|stop`: the node's new status, or a refusal naming it. */
export async function controlNode(
  view: ControlView,
  client: NodeControlClient,
  name: string,
  action: 'start' | 'stop',
): Promise<string> {
  const node = nodeNamed(view, name);
  const askedAt = view.states.now();
  let reply: NodeReply<NodeStatus>;
  if (action === 'start') {
    let source;
    try {
      source = await view.source(node);
    } catch (error) {
      throw new GatewayError(502, `node "${name}": ${(error as Error).message}`, {
        code: 'upstream_error',
      });
    }
    reply = await client.start(node, source);
    // Already running: starting is idempotent, as `svc fleet start` is; report what runs.
    if (!reply.ok && reply.status === 409) {
      reply = await client.status(node);
    }
  } else {
    reply = await client.stop(node);
  }
  if (!reply.ok) {
    throw new GatewayError(502, `node "${name}" refused to ${action}: ${reply.detail}`, {
      code: 'upstream_error',
    });
  }
  view.states.record(snapshotOf(node, reply), askedAt);
  return JSON.stringify({ name, ...reply.value });
}
