/**
 * How the gateway admits a model request (docs/design.md D33): placed at once in one scheduler
 * step when a ready node has a free slot; otherwise once the nodes that could change the answer
 * have answered and what a wake of each node would start is known (freshen.ts), so it is never
 * queued, woken for or refused on a fact not yet known. Both the fast path and a request behind
 * others already waiting for its model with nothing left to learn (at full slots, every arrival)
 * are answered in the caller's own turn: no promise, no microtask.
 */
import type { Clock } from '../../core/clock.ts';
import type { Scheduler } from '../../core/fleet/scheduling/scheduler.ts';
import type { RequestInfo } from '../../core/fleet/scheduling/types.ts';
import { freshen } from '../../core/fleet/state/freshen.ts';
import type { NodeStates } from '../../core/fleet/state/node-states.ts';
import type { Admission } from './loop-contract.ts';
import type { ScheduleLoop } from './schedule-loop.ts';
import type { SchedulerViews } from './scheduler-views.ts';

export interface AdmissionDeps {
  readonly states: Pick<NodeStates, 'use' | 'current' | 'last' | 'until'>;
  readonly scheduler: Scheduler;
  readonly loop: Pick<ScheduleLoop, 'admitIfPlaced' | 'admit'>;
  readonly views: Pick<SchedulerViews, 'isSettled' | 'settled'>;
  readonly now: Clock;
}

export function admitRequest(
  deps: AdmissionDeps,
  request: Omit<RequestInfo, 'id'>,
): Admission | Promise<Admission> {
  const { states, scheduler, loop, views } = deps;
  states.use();
  const placed = loop.admitIfPlaced(request);
  if (placed !== undefined) {
    return placed;
  }
  // freshen() would return at once: every snapshot is fresh, no wake fact is being read, and
  // others wait for the model (so a plan already found it a node, or refused them all).
  const behind =
    scheduler.waitingCount(request.model) > 0 &&
    views.isSettled() &&
    states.current().pending.length === 0;
  return behind ? loop.admit(request) : admitLater(deps, request);
}

async function admitLater(
  deps: AdmissionDeps,
  request: Omit<RequestInfo, 'id'>,
): Promise<Admission> {
  await freshen(
    {
      states: deps.states,
      scheduler: deps.scheduler,
      settled: () => deps.views.settled(),
      now: deps.now,
    },
    request.model,
  );
  return deps.loop.admit(request);
}
