/**
 * A caller's `wake: off` (docs/design.md D29), pure: a request that no running node can take and
 * that would start a node (a wake, a swap, or a wait for a group to make room for one; a machine's
 * boot is part of its node's wake) is refused naming that node, before anything is started. One
 * already coming for the model is waited for: it was not this caller's to start.
 */
import { candidates, type Plan, type PlanContext } from '../nodes/wakes.ts';
import type { RequestInfo } from '../types.ts';

/** The refusal's detail, naming the node it would wake; undefined when it may wait or wake. */
export function wakeRefused(
  request: Pick<RequestInfo, 'model' | 'mayWake'>,
  context: PlanContext,
  plan: Plan,
  now: number,
): { readonly wakeRefused: string } | undefined {
  if (request.mayWake !== false) {
    return undefined;
  }
  if (plan.kind === 'wake') {
    return { wakeRefused: plan.node.settings.name };
  }
  if (plan.kind === 'swap' || plan.kind === 'blocked') {
    const [first] = candidates(context, request.model, now);
    return { wakeRefused: first?.settings.name ?? plan.group };
  }
  return undefined;
}
