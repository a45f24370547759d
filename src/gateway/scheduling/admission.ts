/**
 * How the gateway admits a model request (docs/design.md D33): never queued, woken for or refused
 * on a fact not yet known. With every node answered and no wake fact being read, one scheduler step
 * answers it in the caller's own turn (no promise, no microtask): placed, sent to an upstream node
 * or a fallback, queued, woken for, or refused; all but a refusal for want of a node, which waits
 * until the nodes that said nothing are asked again (freshen.ts). Otherwise it is placed at once
 * only when a ready node has a free slot, and waits for the nodes that could change the answer
 * before anything else.
 */
import type { RequestInfo } from '../../core/fleet/scheduling/types.ts';
import { freshen, type FreshenDeps } from '../../core/fleet/state/freshen.ts';
import type { NodeStates } from '../../core/fleet/state/node-states.ts';
import type { Admission } from './loop-contract.ts';
import type { ScheduleLoop } from './schedule-loop.ts';
import type { SchedulerViews } from './scheduler-views.ts';

export interface AdmissionDeps {
  readonly states: Pick<NodeStates, 'use' | 'current'>;
  readonly loop: Pick<ScheduleLoop, 'admitNow' | 'admit'>;
  readonly views: Pick<SchedulerViews, 'isSettled'>;
  /** What freshen reads and waits on, built once with the gateway rather than per request. */
  readonly freshen: FreshenDeps;
}

export function admitRequest(
  deps: AdmissionDeps,
  request: Omit<RequestInfo, 'id'>,
): Admission | Promise<Admission> {
  const { states, loop, views } = deps;
  states.use();
  const known = views.isSettled() && states.current().pending.length === 0;
  return (
    loop.admitNow(request, known ? 'noNodeRefusal' : 'unlessPlaced') ?? admitLater(deps, request)
  );
}

async function admitLater(
  deps: AdmissionDeps,
  request: Omit<RequestInfo, 'id'>,
): Promise<Admission> {
  await freshen(deps.freshen, request.model);
  return deps.loop.admit(request);
}
