/**
 * A local node seen from outside its gateway (docs/design.md D27): `svc fleet` cannot supervise an
 * engine the gateway runs, so it asks the gateway named in the fleet file's `gateway` section, with
 * the token that section names (the operator token, when the file names one, for start, stop and
 * logs, docs/design.md D28): status from `/v1/fleet`, stats from `/v1/fleet/stats`, start and stop
 * through `POST /v1/fleet/nodes/{name}/start|stop`, a slice of the engine log from
 * `GET /v1/fleet/nodes/{name}/logs` (the daemon's query and reply, spec §4.1 rule 5), so
 * `svc fleet logs -f` follows a local node as it follows a daemon's.
 */
import { request } from 'undici';

import type { LogsResponse, Stats } from '../../contract/schemas.ts';
import type { Fleet, LocalNode, Variables } from '../file/fleet-file.ts';
import { fleetDotenv, nodeSourceConfig } from '../load/load-fleet.ts';
import type {
  DriverContext,
  GatewayNodeAct,
  NodeDriver,
  NodeReply,
  NodeStats,
  NodeStatus,
} from './node-driver.ts';
import { logsSearch, STATUS_TIMEOUT_MS } from './node-driver.ts';

/** Where a gateway answers, without the `/v1` agents add. */
export function gatewayBase(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** A `/v1/fleet` node entry as this driver reads it. */
interface FleetEntry extends Omit<NodeStatus, 'version'> {
  readonly name: string;
  readonly detail?: string;
  readonly kind?: string;
  readonly tags?: unknown;
  readonly wakeableModel?: string;
  readonly group?: unknown;
  readonly inFlight?: unknown;
  readonly idleStopAt?: unknown;
}

export type GatewayCall = <T>(
  method: 'GET' | 'POST',
  path: string,
  token: string | undefined,
  timeoutMs: number,
) => Promise<NodeReply<T>>;

function httpCall(base: string): GatewayCall {
  return async <T>(
    method: 'GET' | 'POST',
    path: string,
    token: string | undefined,
    timeoutMs: number,
  ): Promise<NodeReply<T>> => {
    const url = `${base}${path}`;
    try {
      const reply = await request(url, {
        method,
        signal: AbortSignal.timeout(timeoutMs),
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      });
      const text = await reply.body.text();
      if (reply.statusCode === 200) {
        return { ok: true, value: JSON.parse(text) as T };
      }
      let detail = `the gateway at ${base} answered HTTP ${reply.statusCode}`;
      try {
        const error = (JSON.parse(text) as { error?: { message?: unknown } }).error;
        if (typeof error?.message === 'string') {
          detail = `${detail}: ${error.message}`;
        }
      } catch {
        // not JSON
      }
      return {
        ok: false,
        outcome: reply.statusCode === 401 || reply.statusCode === 403 ? 'unauthorized' : 'failed',
        status: reply.statusCode,
        detail,
      };
    } catch (error) {
      return {
        ok: false,
        outcome: 'unreachable',
        detail: `the gateway at ${base} (which runs local nodes): ${(error as Error).message}`,
      };
    }
  };
}

/** A variable's value: the process environment, else the `.env` beside the fleet file. */
async function valueOf(name: string, env: Variables, fleet: Fleet): Promise<string | undefined> {
  const own = env[name];
  if (own !== undefined && own !== '') {
    return own;
  }
  const value = (await fleetDotenv(fleet.path))[name];
  return value === '' ? undefined : value;
}

/** The operator token where the file names one, else the gateway token (docs/design.md D28). */
function operatorToken(context: DriverContext): Promise<string | undefined> {
  const { fleet, env } = context;
  const section = fleet.gateway;
  if (fleet.operator !== undefined) {
    return fleet.operator.token === undefined
      ? valueOf(fleet.operator.tokenEnv, env, fleet)
      : Promise.resolve(fleet.operator.token);
  }
  return section === undefined ? Promise.resolve(undefined) : valueOf(section.tokenEnv, env, fleet);
}

/**
 * `POST /v1/fleet/nodes/{name}/start|stop` with the operator token: how `svc fleet` drives a node
 * the gateway must know of (a local node; a group member's start, docs/design.md D33). The gateway
 * answers a node already running with its status, so a 409 from it is a refusal (`group_busy`,
 * `node_busy`), never "already running": it is passed on without its status code.
 */
export function gatewayNodeAct(
  context: DriverContext,
  call: GatewayCall = httpCall(gatewayBase(context.fleet.gateway?.url ?? '')),
): GatewayNodeAct {
  return async (node, action, force) => {
    const query = force ? '?force=true' : '';
    const path = `/v1/fleet/nodes/${encodeURIComponent(node.name)}/${action}${query}`;
    const reply = await call<NodeStatus & { name: string }>(
      'POST',
      path,
      await operatorToken(context),
      60_000,
    );
    if (!reply.ok) {
      const { status: _status, ...refusal } = reply;
      return reply.status === 409 ? refusal : reply;
    }
    const { name: _name, ...value } = reply.value;
    return { ok: true as const, value };
  };
}

export function gatewayLocalDriver(
  context: DriverContext,
  url: string,
  call: GatewayCall = httpCall(gatewayBase(url)),
): NodeDriver<LocalNode> {
  const { fleet, env } = context;
  const section = fleet.gateway;
  const useToken = (): Promise<string | undefined> =>
    section === undefined ? Promise.resolve(undefined) : valueOf(section.tokenEnv, env, fleet);
  const operateToken = (): Promise<string | undefined> => operatorToken(context);

  const status = async (node: LocalNode, timeoutMs = STATUS_TIMEOUT_MS) => {
    const reply = await call<{ nodes: FleetEntry[] }>(
      'GET',
      '/v1/fleet',
      await useToken(),
      timeoutMs,
    );
    if (!reply.ok) {
      return reply;
    }
    return entryStatus(
      node,
      reply.value.nodes.find((entry) => entry.name === node.name),
    );
  };
  const act = gatewayNodeAct(context, call);
  return {
    status,
    wakeSource: (node) => nodeSourceConfig(fleet, node, context),
    // The gateway starts the node from its own reading of the node's file.
    start: (node, _source, options) => act(node, 'start', options?.force === true),
    stop: (node, options) => act(node, 'stop', options?.force === true),
    stats: async (node) => {
      const reply = await call<{ nodes: { name: string; stats?: Stats; error?: string }[] }>(
        'GET',
        '/v1/fleet/stats',
        await useToken(),
        STATUS_TIMEOUT_MS,
      );
      if (!reply.ok) {
        return reply;
      }
      const entry = reply.value.nodes.find((candidate) => candidate.name === node.name);
      return entry?.stats === undefined
        ? {
            ok: false,
            outcome: 'failed',
            detail: entry?.error ?? `the gateway at ${url} does not list node "${node.name}"`,
          }
        : ({ ok: true, value: entry.stats } satisfies NodeReply<NodeStats>);
    },
    // docs/design.md D28: an engine log holds other callers' requests, so the gateway asks for the
    // operator token where the file names one.
    logs: async (node, query) =>
      call<LogsResponse>(
        'GET',
        `/v1/fleet/nodes/${encodeURIComponent(node.name)}/logs${logsSearch(query)}`,
        await operateToken(),
        STATUS_TIMEOUT_MS,
      ),
  };
}

/** A `/v1/fleet` entry as the node's status; an entry standing in for a failed node is the failure. */
function entryStatus(node: LocalNode, entry: FleetEntry | undefined): NodeReply<NodeStatus> {
  if (entry === undefined) {
    return {
      ok: false,
      outcome: 'failed',
      detail: `the gateway does not list node "${node.name}": is it serving this fleet file?`,
    };
  }
  if (entry.detail !== undefined) {
    return { ok: false, outcome: 'failed', detail: entry.detail };
  }
  // The entry's fleet facts (kind, tags, what a wake would start, its group) and the gateway's
  // own (its requests on the node, its idle stop; docs/design.md D25, D26) are not the node's
  // status: svc fleet status reads those beside the node, as it does for a daemon's.
  const {
    name: _name,
    kind: _kind,
    tags: _tags,
    wakeableModel: _wakeable,
    group: _group,
    inFlight: _inFlight,
    idleStopAt: _idleStopAt,
    ...status
  } = entry;
  return { ok: true, value: status };
}
