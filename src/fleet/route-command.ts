/**
 * `svc fleet route <model>` (docs/design.md D33): what the gateway would do with a request for the
 * model now. It asks the gateway the fleet file names (`GET /v1/fleet/route`: its live decision,
 * with its requests in flight and its queue); without one, or when it does not answer, it works the
 * decision out with the gateway's own scheduler from the nodes' status and sources alone, and says
 * so. Starts nothing. Exits 0 when a request would be taken (served, queued or woken for), 1 when
 * it would be refused, so scripts can test it.
 */
import { SvcError } from '../core/errors.ts';
import type { NodeDriver } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, Variables } from '../core/fleet/file/fleet-file.ts';
import { isRecord } from '../core/fleet/file/fleet-node.ts';
import { engineTarget } from '../core/fleet/routing/engine-target.ts';
import type { RouteDecision } from '../core/fleet/scheduling/route-decision.ts';
import { routeFromStatus } from '../core/fleet/scheduling/route-offline.ts';
import { type WakeFacts, wakeFactsFrom } from '../core/fleet/scheduling/view-of-snapshot.ts';
import { mapBounded } from '../core/fleet/state/call-limiter.ts';
import {
  NODE_STATES_DEFAULTS,
  type NodeSnapshot,
  snapshotOf,
} from '../core/fleet/state/node-snapshot.ts';
import { fleetUrl, GATEWAY_TIMEOUT_MS, type GetText, getText } from './gateway-readout.ts';
import { routeText } from './route-text.ts';
import { startProblems, unreachableByConfig } from './select.ts';

/** The gateway's default `--wake-timeout`: a decision worked out here assumes it. */
const WAKE_TIMEOUT_MS = 5 * 60_000;

export interface RouteCommand {
  readonly fleet: Fleet;
  readonly model: string;
  readonly json: boolean;
  readonly write: (text: string) => void;
  readonly driver: Pick<NodeDriver, 'status' | 'wakeSource'>;
  /** The environment and the `.env` beside the fleet file: the gateway token's variable. */
  readonly variables?: readonly Variables[];
  readonly get?: GetText;
}

type Asked = { readonly decision: RouteDecision } | { readonly problem: string };

/** The gateway's live decision, or why there is none. */
async function askGateway(command: RouteCommand): Promise<Asked | undefined> {
  const gateway = command.fleet.gateway;
  if (gateway === undefined) {
    return undefined;
  }
  const token = (command.variables ?? [])
    .map((layer) => layer[gateway.tokenEnv])
    .find((value) => value !== undefined && value !== '');
  const url = `${fleetUrl(gateway)}/route?model=${encodeURIComponent(command.model)}`;
  try {
    const reply = await (command.get ?? getText)(url, token, GATEWAY_TIMEOUT_MS);
    if (reply.status !== 200) {
      return { problem: `GET ${url} answered HTTP ${reply.status}` };
    }
    const body: unknown = JSON.parse(reply.text);
    if (!isRecord(body) || typeof body['action'] !== 'string' || !Array.isArray(body['nodes'])) {
      return { problem: `GET ${url} answered something other than a route` };
    }
    return { decision: body as unknown as RouteDecision };
  } catch (error) {
    return { problem: `GET ${url}: ${(error as Error).message}` };
  }
}

async function statusOf(command: RouteCommand): Promise<NodeSnapshot[]> {
  const { fleet } = command;
  return mapBounded(fleet.nodes, NODE_STATES_DEFAULTS.concurrency, async (node) => {
    const blocked = unreachableByConfig(node, fleet);
    return blocked === undefined
      ? snapshotOf(node, await command.driver.status(node))
      : { node, ok: false, outcome: 'config-error', detail: blocked };
  });
}

/** What a wake of each answering node that is not running would start. */
async function wakeFacts(
  command: RouteCommand,
  snapshots: readonly NodeSnapshot[],
): Promise<Map<string, WakeFacts>> {
  const facts = new Map<string, WakeFacts>();
  for (const snapshot of snapshots) {
    if (!snapshot.ok || snapshot.status.state === 'running') {
      continue;
    }
    const { node } = snapshot;
    const problems = startProblems(node, command.fleet);
    let source;
    try {
      source =
        problems.length > 0
          ? { problem: problems.join('; ') }
          : await command.driver.wakeSource(node);
    } catch (error) {
      source = { problem: (error as Error).message };
    }
    facts.set(node.name, wakeFactsFrom(node, snapshot.status.model, source));
  }
  return facts;
}

/** The engine a served request goes to, from the node's own status. */
async function engineOf(
  command: RouteCommand,
  decision: RouteDecision,
  snapshots: readonly NodeSnapshot[] | undefined,
): Promise<string | undefined> {
  const node = command.fleet.nodes.find((entry) => entry.name === decision.node);
  if (decision.action !== 'serve' || node === undefined) {
    return undefined;
  }
  const snapshot =
    snapshots?.find((entry) => entry.node === node) ??
    snapshotOf(node, await command.driver.status(node));
  if (!snapshot.ok) {
    return undefined;
  }
  const target = engineTarget(snapshot, command.fleet.path);
  return 'unusable' in target ? `none: ${target.unusable}` : target.baseUrl;
}

export async function runRoute(command: RouteCommand): Promise<number> {
  const { fleet, model } = command;
  if (model === '') {
    throw new SvcError('ERR_USAGE', 'name the model to route: svc fleet route <model>');
  }
  const asked = await askGateway(command);
  let decision: RouteDecision;
  let snapshots: NodeSnapshot[] | undefined;
  let source: string;
  if (asked !== undefined && 'decision' in asked) {
    decision = asked.decision;
    source = `(the live decision of the gateway ${fleet.gateway?.name ?? ''} at ${fleet.gateway?.url ?? ''})`;
  } else {
    snapshots = await statusOf(command);
    const facts = await wakeFacts(command, snapshots);
    decision = routeFromStatus(fleet, model, snapshots, facts, Date.now(), WAKE_TIMEOUT_MS);
    source =
      asked === undefined
        ? `note: worked out from the nodes' status alone (${fleet.path} names no gateway): a gateway's requests in flight, queue and wakes under way are not counted`
        : `note: the gateway did not answer (${asked.problem}); worked out from the nodes' status alone: its requests in flight, queue and wakes under way are not counted`;
  }
  const engine = await engineOf(command, decision, snapshots);
  command.write(
    command.json
      ? `${JSON.stringify({ ...decision, ...(engine === undefined ? {} : { engine }) }, null, 2)}\n`
      : routeText(decision, { ...(engine === undefined ? {} : { engine }), source }),
  );
  return decision.action === 'refuse' ? 1 : 0;
}
