/**
 * The words for why a group holds (docs/design.md D26 `group_busy`, D33): one wording for a
 * request's 503 and an operator's refused start, whether the gateway or `svc fleet start` refuses
 * it. Pure.
 */
import { formatDurationText } from '../../duration.ts';
import type { Action, HoldReason } from './types.ts';

export function holdText(hold: HoldReason): string {
  switch (hold.why) {
    case 'busy':
      return `it has ${hold.inFlight} request${hold.inFlight === 1 ? '' : 's'} in flight and ${hold.queued} queued`;
    case 'residency':
      return `it has not yet run its minimum residency (${formatDurationText(hold.remainingMs)} left)`;
    case 'starting':
      return 'it is starting';
    case 'stopping':
      return 'it is stopping';
  }
}

/**
 * docs/design.md D33: an operator's start into a full group no member may leave now: the member
 * first in line, why, and how to force it (`force`: the way the asker forces, a flag or a query).
 */
export function startRefusalText(
  refused: Extract<Action, { kind: 'start-refused' }>,
  max: number,
  force: string,
): string {
  const members = max === 1 ? '1 member' : `${max} members`;
  const next =
    refused.why === 'busy'
      ? 'start it once they end'
      : refused.why === 'residency'
        ? 'start it once that passes'
        : 'start it once that ends';
  return `cannot start "${refused.node}": its group "${refused.group}" runs at most ${members} and is held by "${refused.holder}": ${holdText(refused)}; ${next}, or start it anyway with ${force}, which stops "${refused.holder}"`;
}
