/**
 * `svc fleet start | stop <node…> | --all`: each node driven in turn, one line per node. A node
 * already in the asked-for state is reported as such and counts as done (start and stop are
 * idempotent for the user, not only for the daemon: spec §3 answers a start over a running engine
 * with 409). A start sends the config the node's own Svcfile resolves to, with its engine key.
 *
 * Every start goes through the scheduler (docs/design.md D33): a local node's through the gateway
 * that runs it; a group member's through the gateway the fleet file names, else (none named, or it
 * does not answer) through the same decision made here from the members' status (group-start.ts). A
 * stop of a local node goes through its gateway, which refuses one with requests in flight unless
 * forced (docs/design.md D28); a daemon or remote node is stopped by the node itself.
 */
import { type Clock, wallClock } from '../core/clock.ts';
import type {
  GatewayNodeAct,
  NodeDriver,
  NodeReply,
  NodeSource,
  NodeStatus,
} from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
import { makeRoom } from './group-start.ts';
import { startProblems, unreachableByConfig } from './select.ts';

export interface ActionResult {
  readonly node: string;
  /** `already`: the node was in the asked-for state and nothing was sent. */
  readonly outcome: 'ok' | 'already' | 'failed';
  readonly state?: string;
  readonly source?: string;
  readonly error?: string;
}

export interface ActionDeps {
  /** `wakeSource`: what a start sends (a daemon's own Svcfile, resolved; docs/design.md D21). */
  readonly driver: Pick<NodeDriver, 'status' | 'wakeSource' | 'start' | 'stop'>;
  /** A human line as it happens (omitted under --json). */
  readonly print: (line: string) => void;
  /** `--force` (docs/design.md D28, D33): stop a busy node; start into a group held by one. */
  readonly force?: boolean;
  /** Starts and stops through the gateway the fleet file names; absent when it names none. */
  readonly gatewayAct?: GatewayNodeAct;
  readonly now?: Clock;
}

/** A group member that is not a local node: the gateway named in the file starts it, else we do. */
async function startGroupMember(
  fleet: Fleet,
  node: FleetNode,
  wake: NodeSource,
  deps: ActionDeps,
): Promise<NodeReply<NodeStatus>> {
  const force = deps.force === true;
  if (deps.gatewayAct !== undefined) {
    const through = await deps.gatewayAct(node, 'start', force);
    if (through.ok || through.outcome !== 'unreachable') {
      return through;
    }
    deps.print(`${node.name}: ${through.detail}; making room in its group here`);
  }
  await makeRoom(fleet, node, force, { ...deps, now: deps.now ?? wallClock });
  return deps.driver.start(node, wake);
}

class NodeFailure extends Error {}

async function startOne(fleet: Fleet, node: FleetNode, deps: ActionDeps): Promise<ActionResult> {
  const problems = startProblems(node, fleet);
  if (problems.length > 0) {
    // Starting without the key would open an engine meant to be gated.
    throw new NodeFailure(problems.join('; '));
  }
  const before = await deps.driver.status(node);
  if (!before.ok) {
    throw new NodeFailure(before.detail);
  }
  const already = (serving: string | undefined): ActionResult => {
    deps.print(`${node.name}  already running${serving === undefined ? '' : ` (${serving})`}`);
    return { node: node.name, outcome: 'already', state: 'running' };
  };
  if (before.value.state === 'running') {
    return already(before.value.servedName ?? before.value.model);
  }
  const wake = await deps.driver.wakeSource(node);
  const source = wake.source;
  deps.print(`${node.name}: using ${source}`);
  const reply =
    node.group !== undefined && node.kind !== 'local'
      ? await startGroupMember(fleet, node, wake, deps)
      : await deps.driver.start(node, wake, deps.force === true ? { force: true } : {});
  if (!reply.ok && reply.status === 409) {
    // Started by someone else (a gateway wake) since we asked: the node is where the user wants it.
    const after = await deps.driver.status(node);
    return already(after.ok ? (after.value.servedName ?? after.value.model) : undefined);
  }
  if (!reply.ok) {
    throw new NodeFailure(reply.detail);
  }
  deps.print(`${node.name}  ${reply.value.state}`);
  return { node: node.name, outcome: 'ok', state: reply.value.state, source };
}

async function stopOne(node: FleetNode, deps: ActionDeps): Promise<ActionResult> {
  const before = await deps.driver.status(node);
  if (!before.ok) {
    throw new NodeFailure(before.detail);
  }
  if (before.value.state !== 'running') {
    const state = before.value.state;
    deps.print(
      `${node.name}  ${state === 'stopped' ? 'already stopped' : `not running (${state})`}`,
    );
    return { node: node.name, outcome: 'already', state };
  }
  const reply = await deps.driver.stop(node, deps.force === true ? { force: true } : {});
  if (!reply.ok) {
    throw new NodeFailure(reply.detail);
  }
  deps.print(`${node.name}  ${reply.value.state}`);
  return { node: node.name, outcome: 'ok', state: reply.value.state };
}

/** Every node in turn; one node's failure is its line and never stops the others. */
export async function fleetAct(
  verb: 'start' | 'stop',
  fleet: Fleet,
  nodes: readonly FleetNode[],
  deps: ActionDeps,
): Promise<ActionResult[]> {
  const results: ActionResult[] = [];
  for (const node of nodes) {
    try {
      const blocked = unreachableByConfig(node, fleet);
      if (blocked !== undefined) {
        throw new NodeFailure(blocked);
      }
      results.push(
        verb === 'start' ? await startOne(fleet, node, deps) : await stopOne(node, deps),
      );
    } catch (error) {
      const message = (error as Error).message;
      deps.print(`${node.name}  failed: ${message}`);
      results.push({ node: node.name, outcome: 'failed', error: message });
    }
  }
  return results;
}
