/**
 * How long a request may wait, and what it is told when that runs out (docs/design.md D19, D25,
 * D26), pure.
 *
 * A wait has two phases, one queue: while no ready node serves the model (it is being woken, is
 * loading, or its group is full) the wake timeout bounds it from when the request arrived (spec
 * §4.2 rule 5); once a node is ready and full, the queue timeout bounds it from when that node
 * became ready, or from the request's arrival if later. So a burst that arrives for a cold model
 * is not refused the moment its node answers for having waited through the wake, and every wait
 * stays bounded: at most wake timeout plus queue timeout, however readiness comes and goes.
 * The refusal says what the wait was for: a slot (`queue_timeout`), a group held by its members
 * (`group_busy`, naming the holder and why), or a node coming up (`wake_timeout`).
 */
import { type PlanContext, planFor } from '../nodes/wakes.ts';
import type { QueueLimits, RejectDetail, RejectReason } from '../types.ts';
import type { Waiting } from './queue.ts';
import { retryAfterSeconds } from './slots.ts';

/**
 * As today's wake timeout says (docs/design.md D19): the engine is left loading, so a retry may
 * find it.
 */
export const WAKE_TIMEOUT_RETRY_S = 30;

export interface Expired {
  readonly entry: Waiting;
  readonly reason: RejectReason;
  readonly retryAfterSeconds?: number;
  readonly detail?: RejectDetail;
}

export interface DeadlineInputs {
  /** Since when a ready node has served the model; undefined: none does now. */
  readonly readySince: number | undefined;
  readonly limits: QueueLimits;
  readonly wakeTimeoutMs: number;
  /** Slots freeing per second for the model (slots.ts). */
  readonly rate: number;
  readonly now: number;
}

/** When the entry's wait runs out, as things stand. */
export function deadlineOf(
  entry: Waiting,
  readySince: number | undefined,
  limits: QueueLimits,
  wakeTimeoutMs: number,
): number {
  return readySince === undefined
    ? entry.enqueuedAt + wakeTimeoutMs
    : Math.max(entry.enqueuedAt, readySince) + limits.timeoutMs;
}

/** The entries (a model's, oldest first) whose wait has run out, each with its refusal. */
export function expiryOf(
  context: PlanContext,
  model: string,
  entries: readonly Waiting[],
  inputs: DeadlineInputs,
): Expired[] {
  const expired: Expired[] = [];
  let why: Omit<Expired, 'entry'> | undefined;
  // Deadlines grow with arrival, so the first entry still in time ends the walk.
  for (const entry of entries) {
    if (inputs.now < deadlineOf(entry, inputs.readySince, inputs.limits, inputs.wakeTimeoutMs)) {
      break;
    }
    why ??= refusal(context, model, entry.enqueuedAt, inputs, entries.length);
    expired.push({ entry, ...why });
  }
  return expired;
}

function refusal(
  context: PlanContext,
  model: string,
  since: number,
  inputs: DeadlineInputs,
  waiting: number,
): Omit<Expired, 'entry'> {
  if (inputs.readySince !== undefined) {
    return { reason: 'queue_timeout', retryAfterSeconds: retryAfterSeconds(inputs.rate, waiting) };
  }
  const plan = planFor(context, model, since);
  if (plan.kind === 'blocked') {
    const hold = plan.hold;
    const retry =
      hold?.why === 'residency'
        ? Math.max(1, Math.ceil(hold.remainingMs / 1_000))
        : retryAfterSeconds(inputs.rate, 1);
    return {
      reason: 'group_busy',
      retryAfterSeconds: retry,
      ...(hold === undefined ? {} : { detail: { group: plan.group, ...hold } }),
    };
  }
  return {
    reason: 'wake_timeout',
    retryAfterSeconds: WAKE_TIMEOUT_RETRY_S,
    ...(plan.kind === 'coming' ? { detail: { waitingFor: plan.node } } : {}),
  };
}
