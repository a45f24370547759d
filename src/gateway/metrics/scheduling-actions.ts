/**
 * What each scheduler action adds to the gateway's metrics (docs/design.md D25, D26): a request's
 * wait in the queue (dispatched or refused), a refusal by reason, a scale-out wake, an idle stop, a
 * swap, a dispatch to a fallback. The loop at the edge calls it for every action it applies.
 */
import type { Action } from '../../core/fleet/scheduling/types.ts';
import type { SchedulingCounters } from './scheduling-counters.ts';

export type ActionCounters = Pick<
  SchedulingCounters,
  'queueWaited' | 'rejected' | 'scaleOutWake' | 'idleStopped' | 'swapped' | 'fellBack'
>;

export function countAction(counters: ActionCounters, action: Action): void {
  switch (action.kind) {
    case 'dispatch':
      // A request placed on arrival waited nothing: only a wait is observed.
      if (action.waitedMs > 0) {
        counters.queueWaited(action.waitedMs / 1_000);
      }
      // docs/design.md D30 `waking`, `queueFull`: the scheduler sent it to the fallback.
      if (action.fallback !== undefined) {
        counters.fellBack(action.model, action.fallback);
      }
      break;
    case 'reject':
      counters.rejected(action.reason);
      if (action.waitedMs > 0) {
        counters.queueWaited(action.waitedMs / 1_000);
      }
      break;
    case 'wake':
      if (action.cause === 'scale-out') {
        counters.scaleOutWake(action.model);
      }
      break;
    case 'stop':
      if (action.reason === 'idle') {
        counters.idleStopped(action.node);
      } else if (action.group !== undefined) {
        counters.swapped(action.group);
      }
      break;
  }
}
