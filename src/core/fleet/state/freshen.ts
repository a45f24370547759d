/**
 * What a request the scheduler could not place at once waits for before it decides (docs/design.md
 * D33: the node-state layer hands snapshots over, the scheduler alone decides): the nodes without a
 * fresh snapshot answer, those whose last answer served the model first, returning as soon as one
 * answer lets the scheduler place it; then every wake fact being read is fed. A node marked
 * unreachable is asked again before a refusal is made because of it: a gateway's first round may
 * have found a daemon not yet listening, and refusing from that snapshot would refuse for up to its
 * stale bound.
 */
import type { Clock } from '../../clock.ts';
import { serves } from '../routing/engine-target.ts';
import type { Scheduler } from '../scheduling/scheduler.ts';
import type { NodeStates } from './node-states.ts';

export interface FreshenDeps {
  readonly states: Pick<NodeStates, 'current' | 'last' | 'until'>;
  readonly scheduler: Pick<Scheduler, 'placeable' | 'route' | 'waitingCount'>;
  /** Resolves once every wake fact being read has reached the scheduler. */
  readonly settled: () => Promise<void>;
  readonly now: Clock;
}

export async function freshen(deps: FreshenDeps, model: string): Promise<void> {
  const { states, scheduler } = deps;
  const placeable = (answer: { ok: boolean }): boolean => answer.ok && scheduler.placeable(model);
  const { pending } = states.current();
  if (pending.length > 0) {
    const first = pending.filter((node) => {
      const last = states.last(node);
      return last !== undefined && serves(last, model);
    });
    await states.until(pending, first, (answer) => serves(answer, model) && placeable(answer));
  }
  await deps.settled();
  // Others waiting for the model: a plan found a node for it at the last step (the step refuses
  // them all when none is left), so no refusal for want of a node is coming and none is worked out.
  if (scheduler.placeable(model) || scheduler.waitingCount(model) > 0) {
    return;
  }
  const decision = scheduler.route(model, deps.now());
  if (decision.action !== 'refuse' || decision.refusal !== 'no_node') {
    return;
  }
  const silent = decision.nodes
    .filter((node) => node.state === 'unreachable' || node.state === 'unknown')
    .map((node) => node.name);
  if (silent.length === 0) {
    return;
  }
  const { snapshots } = states.current();
  const nodes = snapshots.filter((s) => silent.includes(s.node.name)).map((s) => s.node);
  await states.until(nodes, nodes, placeable);
  await deps.settled();
}
