/**
 * `GET /v1/fleet/nodes/{name}/logs`: one slice of a node's engine log, with the query and reply of
 * the daemon's `GET /v1/logs` (spec §4.1 rule 5, §2.6, docs/design.md D11), so `svc fleet logs`
 * reaches a local node's log (`<config dir>/fleets/<fleet>/nodes/<name>/engine.log`, docs/design.md
 * D27) through the gateway that runs it. Every kind answers through its driver (docs/design.md
 * D21), as `/v1/fleet/stats` does: a daemon node's slice is its daemon's, asked with the node token
 * the gateway holds; a kind with no engine log (remote) is refused naming it.
 *
 * An engine log can hold what other people's requests said, which is more than the fleet's state
 * the gateway token reads: so when an operator token is set, only it may read logs here, as only
 * it may start and stop (docs/design.md D28). Every secret the fleet names (engine keys, node
 * tokens, the gateway and operator tokens) is masked in what leaves (redact-log-slice.ts).
 */
import type { LogsResponse } from '../../core/contract/schemas.ts';
import type { FleetNodeDriver } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { logQueryOf } from '../../core/runner/engine-log.ts';
import { contextBytes, redactLogSlice, sliceStart } from '../../core/runner/redact-log-slice.ts';
import type { CallerRights } from '../callers/caller-rights.ts';
import { fleetSecrets } from '../wakes/node-command-env.ts';
import { nodeNamed } from './fleet-control.ts';

/** The driver call the route needs: every kind's, `unsupported` where a kind has no log. */
export type NodeLogsClient = Pick<FleetNodeDriver, 'logs'>;

export interface NodeLogsDeps {
  readonly view: Pick<FleetView, 'fleet'>;
  readonly nodes: NodeLogsClient;
  /** The gateway token, from whichever source gave it: masked like the fleet's own secrets. */
  readonly token?: string;
}

/** One `GET /v1/fleet/nodes/{name}/logs` as asked. */
export interface LogsAsk {
  readonly name: string;
  /** What the caller's token may do (caller-rights.ts). */
  readonly rights: CallerRights;
  /** The query string after `?`, empty when none. */
  readonly query: string;
}

const LOGS_PATH = /^\/v1\/fleet\/nodes\/([^/]+)\/logs$/;

/** The node named by `GET /v1/fleet/nodes/{name}/logs`, or undefined for another path. */
export function nodeLogsOf(path: string): string | undefined {
  const match = LOGS_PATH.exec(path);
  if (match === null) {
    return undefined;
  }
  try {
    return decodeURIComponent(match[1] ?? '');
  } catch {
    return undefined;
  }
}

/** The query as Fastify hands the daemon's route its own: a repeated parameter is a list. */
function queryRecord(query: string): Record<string, string | string[]> {
  const params = new URLSearchParams(query);
  const record: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    record[name] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return record;
}

/**
 * The text of the log just before `slice`, where its head might finish a secret ('' when it
 * cannot); undefined when that read failed, so the head is masked as if it did.
 */
async function textBefore(
  client: NodeLogsClient,
  node: FleetNode,
  slice: LogsResponse,
  secrets: readonly string[],
): Promise<string | undefined> {
  const bytes = contextBytes(slice, secrets);
  if (bytes === 0) {
    return '';
  }
  const start = sliceStart(slice);
  const reply = await client.logs(node, { offset: start - bytes, limit: bytes });
  return reply.ok && reply.value.nextOffset === start ? reply.value.content : undefined;
}

/** `GET /v1/fleet/nodes/{name}/logs`: the node's LogsResponse, secrets masked, or a refusal. */
export async function nodeLogs(deps: NodeLogsDeps, ask: LogsAsk): Promise<string> {
  if (ask.rights !== 'operate') {
    // docs/design.md D28: engine logs hold other callers' requests; reading them is an operator's
    // act.
    throw new GatewayError(
      403,
      `reading engine logs needs the operator token (the fleet file's gateway.operatorTokenEnv); this token may use models and read the fleet`,
      { code: 'insufficient_permissions' },
    );
  }
  const node = nodeNamed(deps.view, ask.name);
  const asked = logQueryOf(queryRecord(ask.query));
  if ('refusal' in asked) {
    throw new GatewayError(400, asked.refusal);
  }
  const reply = await deps.nodes.logs(node, asked.read);
  if (!reply.ok) {
    throw reply.outcome === 'unsupported'
      ? new GatewayError(400, `node "${node.name}": ${reply.detail}`)
      : new GatewayError(502, `node "${node.name}" did not give its log: ${reply.detail}`, {
          code: 'upstream_error',
        });
  }
  const secrets = fleetSecrets(deps.view.fleet, deps.token).values;
  const before = await textBefore(deps.nodes, node, reply.value, secrets);
  return JSON.stringify(redactLogSlice(reply.value, secrets, before));
}
