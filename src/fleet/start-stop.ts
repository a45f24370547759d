/**
 * `svc fleet start | stop <node…> | --all`: each node driven in turn, one line per node. A node
 * already in the asked-for state is reported as such and counts as done (start and stop are
 * idempotent for the user, not only for the daemon: spec §3 answers a start over a running engine
 * with 409). A start sends the config the node's own Svcfile resolves to, with its engine key.
 */
import type { NodeDriver } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
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
  /** `wakeSource`: what a start sends (a daemon's own Svcfile, resolved; GUIDE D21). */
  readonly driver: Pick<NodeDriver, 'status' | 'wakeSource' | 'start' | 'stop'>;
  /** A human line as it happens (omitted under --json). */
  readonly print: (line: string) => void;
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
  const reply = await deps.driver.start(node, wake);
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
  const reply = await deps.driver.stop(node);
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
