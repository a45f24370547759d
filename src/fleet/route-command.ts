/**
 * `svc fleet route <model>`: asks every node for its status, reads the sources of the nodes that
 * are not running, and prints which node a gateway request for the model would use now, or wake,
 * and why (core/fleet/routing/explain-route.ts). Starts nothing. Exits 0 when a node would take the
 * request, 1 when the request would be refused, so scripts can test it.
 */
import { SvcError } from '../core/errors.ts';
import type { NodeDriver } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet } from '../core/fleet/file/fleet-file.ts';
import {
  explainRoute,
  type NodeSourceOrProblem,
  routeText,
} from '../core/fleet/routing/explain-route.ts';
import { mapBounded } from '../core/fleet/state/call-limiter.ts';
import {
  NODE_STATES_DEFAULTS,
  type NodeSnapshot,
  snapshotOf,
} from '../core/fleet/state/node-snapshot.ts';
import { startProblems, unreachableByConfig } from './select.ts';

export interface RouteCommand {
  readonly fleet: Fleet;
  readonly model: string;
  readonly json: boolean;
  readonly write: (text: string) => void;
  readonly driver: Pick<NodeDriver, 'status' | 'wakeSource'>;
}

export async function runRoute(command: RouteCommand): Promise<number> {
  const { fleet, model } = command;
  if (model === '') {
    throw new SvcError('ERR_USAGE', 'name the model to route: svc fleet route <model>');
  }
  const snapshots: NodeSnapshot[] = await mapBounded(
    fleet.nodes,
    NODE_STATES_DEFAULTS.concurrency,
    async (node) => {
      const blocked = unreachableByConfig(node, fleet);
      return blocked === undefined
        ? snapshotOf(node, await command.driver.status(node))
        : { node, ok: false, outcome: 'config-error', detail: blocked };
    },
  );
  const sources = new Map<string, NodeSourceOrProblem>();
  for (const snapshot of snapshots) {
    if (snapshot.ok && snapshot.status.state !== 'running') {
      const problems = startProblems(snapshot.node, fleet);
      try {
        sources.set(
          snapshot.node.name,
          problems.length > 0
            ? { problem: problems.join('; ') }
            : await command.driver.wakeSource(snapshot.node),
        );
      } catch (error) {
        sources.set(snapshot.node.name, { problem: (error as Error).message });
      }
    }
  }
  const explanation = explainRoute(model, snapshots, fleet, sources);
  command.write(
    command.json ? `${JSON.stringify(explanation, null, 2)}\n` : routeText(explanation),
  );
  return explanation.decision === 'none' ? 1 : 0;
}
