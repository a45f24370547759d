/**
 * The rules the simulated world holds the scheduler to (docs/design.md D25, D26), each checked
 * where it could break and thrown as a Violation naming it. The group size is checked by
 * simulated-nodes.ts at every start; the rest are here.
 */
import type { Action } from '../../../src/core/fleet/scheduling/types.ts';
import { type SimulatedNode, Violation } from './simulated-nodes.ts';

export interface Caller {
  readonly id: number;
  readonly model: string;
  readonly streaming: boolean;
  status: 'waiting' | 'running' | 'done';
  node?: SimulatedNode;
}

/** Each request is answered once: dispatched or refused only while it waits. */
export function checkAnswer(
  action: Action & { kind: 'dispatch' | 'reject' },
  caller: Caller | undefined,
): Caller {
  if (caller?.status !== 'waiting') {
    throw new Violation(`${action.kind} of request ${action.id}, which is not waiting`);
  }
  return caller;
}

/** FIFO per model: none of the model's earlier requests still waits. */
export function checkOrder(caller: Caller, callers: Iterable<Caller>): void {
  for (const other of callers) {
    if (other.model === caller.model && other.status === 'waiting' && other.id < caller.id) {
      throw new Violation(`request ${caller.id} dispatched before ${other.id} (FIFO)`);
    }
  }
}

/**
 * Sent only to a node running its model, and never past the node's slots through us, nor past the
 * fleet file's `slots` whatever its engine reports.
 */
export function checkTarget(caller: Caller, node: SimulatedNode): void {
  if (node.state !== 'running' || node.spec.model !== caller.model) {
    throw new Violation(`request ${caller.id} sent to ${node.spec.name}, which is ${node.state}`);
  }
  if (node.spec.slots !== undefined && node.ours.size >= node.spec.slots) {
    throw new Violation(`${node.spec.name} over its ${node.spec.slots} slots`);
  }
  if (node.spec.cap !== undefined && node.ours.size >= node.spec.cap) {
    throw new Violation(`${node.spec.name} over the ${node.spec.cap} slots of its fleet file`);
  }
}

/** At most one wake in progress per node, and only of a node that is down. */
export function checkWake(node: SimulatedNode): void {
  if (node.waking || node.state !== 'stopped') {
    const what = node.waking ? 'waking' : node.state;
    throw new Violation(`woke ${node.spec.name} while it was ${what}`);
  }
}

/**
 * A stop never cuts a request of ours, a stream least of all, unless an operator forced it
 * (docs/design.md D33), and never stops twice.
 */
export function checkStop(
  node: SimulatedNode,
  callers: ReadonlyMap<number, Caller>,
  forced = false,
): void {
  if ((node.ours.size > 0 && !forced) || node.stopping) {
    const stream = [...node.ours].some((id) => callers.get(id)?.streaming === true);
    const what = node.stopping ? 'a stop under way' : stream ? 'a stream' : 'requests';
    throw new Violation(`stopped ${node.spec.name} with ${what} in flight`);
  }
}

/** The scheduler's in-flight books match what is in each engine from us. */
export function checkBooks(
  nodes: readonly SimulatedNode[],
  inFlight: (node: string) => number,
): void {
  for (const node of nodes) {
    const counted = inFlight(node.spec.name);
    if (counted !== node.ours.size) {
      throw new Violation(`${node.spec.name}: ${counted} counted in flight, ${node.ours.size} are`);
    }
  }
}
