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
import { wakeRefused } from './caller-wake.ts';
import { retryAfterSeconds } from './slots.ts';

export type Arrival =
  | { readonly kind: 'dispatch'; readonly node: NodeRecord }
  | { readonly kind: 'queue' }
  | { readonly kind: 'refuse'; readonly reason: 'no_node' }
  /** docs/design.md D29: its caller may not wake the node serving it would start. */
  | { readonly kind: 'refuse'; readonly reason: 'wake_not_allowed'; readonly node: string }
  | { readonly kind: 'refuse'; readonly reason: 'queue_full'; readonly retryAfterSeconds: number };

/** Where a request for `model` would go now, if a ready node has a free slot for it. */
export function placeNow(
  books: Ledger,
  prefer: Preference,
  request: { readonly model: string; readonly affinity?: string },
): NodeRecord | undefined {
  const { model } = request;
  // FIFO: while others wait for the model, a newcomer cannot go before them.
  if (books.queue.length(model) > 0) {
    return undefined;
  }
  return books.place(request);
}

/** What a request for `model` (with its affinity key, if any) would get now. */
export function arrivalOf(
  books: Ledger,
  prefer: Preference,
  request: { readonly model: string; readonly affinity?: string; readonly mayWake?: false },
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
  return { kind: 'queue' };
}
