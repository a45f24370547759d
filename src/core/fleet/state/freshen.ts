/**
 * What a request the scheduler could not place at once waits for before it decides (GUIDE D33: the
 * node-state layer hands snapshots over, the scheduler alone decides): the nodes without a fresh
 * snapshot answer, those whose last answer served the model first, returning as soon as one answer
 * lets the scheduler place it; then every wake fact being read is fed.
 */
import { serves } from '../routing/engine-target.ts';
import type { Scheduler } from '../scheduling/scheduler.ts';
import type { NodeStates } from './node-states.ts';

export interface FreshenDeps {
  readonly states: Pick<NodeStates, 'current' | 'last' | 'until'>;
  readonly scheduler: Pick<Scheduler, 'placeable'>;
  /** Resolves once every wake fact being read has reached the scheduler. */
  readonly settled: () => Promise<void>;
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
}
