/**
 * `svc fleet route <model>` (GUIDE D33): what the gateway would do with a request for the model
 * now, worked out with the gateway's own scheduler from the nodes' status and sources alone, and
 * saying so. Starts nothing. Exits 0 when a request would be taken (served, queued or woken for), 1 when
 * it would be refused, so scripts can test it.
 */
import { SvcError } from '../core/errors.ts';
import type { NodeDriver } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet } from '../core/fleet/file/fleet-file.ts';
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
  snapshots: readonly NodeSnapshot[],
): Promise<string | undefined> {
  const node = command.fleet.nodes.find((entry) => entry.name === decision.node);
  if (decision.action !== 'serve' || node === undefined) {
    return undefined;
  }
  const snapshot =
    snapshots.find((entry) => entry.node === node) ??
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
  const snapshots = await statusOf(command);
  const facts = await wakeFacts(command, snapshots);
  const decision = routeFromStatus(fleet, model, snapshots, facts, Date.now(), WAKE_TIMEOUT_MS);
  const source = `note: worked out from the nodes' status alone: a gateway's requests in flight, queue and wakes under way are not counted`;
  const engine = await engineOf(command, decision, snapshots);
  command.write(
    command.json
      ? `${JSON.stringify({ ...decision, ...(engine === undefined ? {} : { engine }) }, null, 2)}\n`
      : routeText(decision, { ...(engine === undefined ? {} : { engine }), source }),
  );
  return decision.action === 'refuse' ? 1 : 0;
}
