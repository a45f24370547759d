/**
 * A request the scheduler refused, as the reply the caller gets (docs/design.md D19, D25, D26): the
 * status, the OpenAI-shaped code, a `Retry-After` where a retry can help, and a message that names
 * the model, the wait and what held it. Only `no_node` needs the fleet's own words (which node
 * describes the model, whose wake is off, what is available): no-node.ts words it.
 */
import { formatDurationText } from '../../core/duration.ts';
import { holdText, startRefusalText } from '../../core/fleet/scheduling/refusal-text.ts';
import type { QueueLimits } from '../../core/fleet/scheduling/types.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { wakeTimedOut } from '../wakes/wait-ready.ts';
import { type RejectAction, type StartRefusedAction } from './loop-contract.ts';

export interface RejectionContext {
  /** The fleet file's path, as refusals name it. */
  readonly fleetPath: string;
  readonly limits: QueueLimits;
  readonly wakeTimeoutMs: number;
  /** Why nothing may serve the model (no-node.ts), for `no_node`. */
  readonly unavailable: () => Promise<GatewayError>;
}

function retry(action: RejectAction): { retryAfterSeconds?: number } {
  return action.retryAfterSeconds === undefined
    ? {}
    : { retryAfterSeconds: action.retryAfterSeconds };
}

export async function rejectionError(
  action: RejectAction,
  context: RejectionContext,
): Promise<GatewayError> {
  const { model, detail } = action;
  const waited = formatDurationText(action.waitedMs);
  switch (action.reason) {
    case 'queue_full':
      return new GatewayError(
        429,
        `the queue for ${model} is full: ${context.limits.max} requests already wait for a free slot (queue.max in ${context.fleetPath}); retry later`,
        { code: 'queue_full', ...retry(action) },
      );
    case 'queue_timeout':
      return new GatewayError(
        503,
        `waited ${waited} for a free slot for ${model}, the queue's limit (queue.timeout in ${context.fleetPath}): every node serving it stayed full`,
        { code: 'queue_timeout', ...retry(action) },
      );
    case 'group_busy': {
      const held =
        detail !== undefined && 'group' in detail
          ? `group "${detail.group}" is held by "${detail.holder}": ${holdText(detail)}`
          : 'its group stayed full';
      return new GatewayError(
        503,
        `waited ${waited} for a node to serve ${model}, the wake timeout: ${held}`,
        { code: 'group_busy', ...retry(action) },
      );
    }
    case 'wake_timeout':
      if (detail !== undefined && 'waitingFor' in detail) {
        return wakeTimedOut({ name: detail.waitingFor }, context.wakeTimeoutMs);
      }
      return new GatewayError(
        504,
        `waited ${waited} for a node to serve ${model}, the wake timeout; check \`svc fleet status\``,
        { code: 'wake_timeout', ...retry(action) },
      );
    case 'wake_failed': {
      const failures =
        detail !== undefined && 'failures' in detail
          ? detail.failures.map((failure) => `\n  ${failure.node}: ${failure.detail}`).join('')
          : '';
      return new GatewayError(
        502,
        `no node in ${context.fleetPath} could serve ${model}:${failures}`,
        { code: 'wake_failed' },
      );
    }
    case 'no_node':
      return context.unavailable();
    case 'wake_not_allowed': {
      const node = detail !== undefined && 'wakeRefused' in detail ? detail.wakeRefused : 'a node';
      return new GatewayError(
        403,
        `serving ${model} would wake node "${node}", and this caller may not wake nodes (wake: off in ${context.fleetPath}); ask again once it runs`,
        { code: 'wake_not_allowed' },
      );
    }
  }
}

/** docs/design.md D33: the 409 for an operator's start into a full group no member may leave. */
export function startRefusalError(action: StartRefusedAction, max: number): GatewayError {
  const force = '?force=true (svc fleet start --force)';
  return new GatewayError(409, startRefusalText(action, max, force), { code: 'group_busy' });
}
