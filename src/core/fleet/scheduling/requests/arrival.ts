/**
 * What a request arriving now would get (spec §4.2 rules 3 and 5, docs/design.md D25), pure: a node
 * at once, a place in its model's queue (for a slot or a wake), or a refusal. The scheduler applies
 * it on an `arrive` and `svc fleet route` / `GET /v1/fleet/route` read it without applying it
 * (route-decision.ts, docs/design.md D33), so what the route says is what the gateway then does.
 */
import type { Preference } from '../../file/fleet-file.ts';
import type { Ledger } from '../ledger.ts';
import type { NodeRecord } from '../nodes/nodes.ts';
import { planFor } from '../nodes/wakes.ts';
import type { Action, CallerShare } from '../types.ts';
import type { Arrival } from './arrival-kind.ts';
import { wakeRefused } from './caller-wake.ts';
import { retryAfterSeconds } from './slots.ts';
import { withUpstreams } from './upstream-arrival.ts';

export type { Arrival } from './arrival-kind.ts';

/** Where a request for `model` would go now, if a ready node has a free slot for it. */
export function placeNow(
  books: Ledger,
  prefer: Preference,
  request: { readonly model: string; readonly affinity?: string; readonly caller?: CallerShare },
): NodeRecord | undefined {
  const { mayRun } = books.running;
  // docs/design.md D29: a caller at its `concurrency` waits; while others who may run wait for
  // the model, a newcomer cannot go before them (first in, first out without callers).
  if (!mayRun(request.caller) || books.queue.next(request.model, mayRun) !== undefined) {
    return undefined;
  }
  return books.place(request);
}

type ArrivingRequest = {
  readonly model: string;
  readonly affinity?: string;
  readonly mayWake?: false;
  readonly mayUseUpstreams?: false;
  readonly caller?: CallerShare;
};

/**
 * What a request for `model` (with its affinity key, if any) would get now: the fleet's own nodes'
 * answer, or an upstream node's where docs/design.md D30 sends it there (upstream-arrival.ts).
 */
export function arrivalOf(
  books: Ledger,
  prefer: Preference,
  request: ArrivingRequest,
  now: number,
): Arrival {
  return withUpstreams(books, request, localArrival(books, prefer, request, now), now);
}

/** What the fleet's own nodes would do with the request. */
function localArrival(
  books: Ledger,
  prefer: Preference,
  request: ArrivingRequest,
  now: number,
): Arrival {
  const node = placeNow(books, prefer, request);
  if (node !== undefined) {
    return { kind: 'dispatch', node };
  }
  const { model } = request;
  const context = books.context(now, books.queue.head(model) ?? request);
  const plan = planFor(context, model, now);
  if (plan.kind === 'none') {
    return { kind: 'refuse', reason: 'no_node' };
  }
  const refusedWake = wakeRefused(request, context, plan, now);
  if (refusedWake !== undefined) {
    return { kind: 'refuse', reason: 'wake_not_allowed', node: refusedWake.wakeRefused };
  }
  // docs/design.md D33: `queue.max` bounds the wait for a slot on a node that serves the model;
  // a request for a model nothing serves yet waits for its wake, whatever the bound.
  const waiting = books.queue.length(model);
  if (plan.kind === 'serving' && waiting >= books.limits(model).max) {
    const retry = retryAfterSeconds(books.rateFor(model, now), waiting + 1);
    return { kind: 'refuse', reason: 'queue_full', retryAfterSeconds: retry };
  }
  return { kind: 'queue', waitsFor: plan.kind === 'serving' ? 'slot' : 'wake' };
}

/**
 * docs/design.md D30: a dispatch to a fallback names why (`x-svc-fallback`); the scheduler hands
 * its model on as demand, so the wake it stood in for still starts.
 */
export function withFallback(sent: Action, arrival: Arrival): Action {
  return sent.kind === 'dispatch' && arrival.kind === 'dispatch' && arrival.fallback !== undefined
    ? { ...sent, fallback: arrival.fallback }
    : sent;
}
