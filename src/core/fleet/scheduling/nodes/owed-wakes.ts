/**
 * Wakes waking fallbacks stand for but could not start (docs/design.md D30), pure. A fallback
 * answers at once and its wake still starts; but when the node is already coming up (being woken,
 * or its last wake failed and no view since says whether its engine still loads, wakes.ts), the
 * plan waits on it, and nothing waits in the queue for the model, so once that wake failed (the
 * node stopped or crashed while it loaded) no later step would plan for it: the node stayed
 * stopped. Such a model is owed a wake: planned at every step while its plan is still that wait,
 * and as for a request arriving after every failure so far, since the request it stands for was
 * answered and no wait of its began.
 */
import type { Ledger } from '../ledger.ts';
import type { Plan } from './wakes.ts';

const NONE: readonly string[] = [];

/** The models to plan for at this step: those waiting, the arrival's own, and those owed a wake. */
export function modelsToPlan(books: Ledger, arrived: string | undefined): readonly string[] {
  const { queue, owedWakes } = books;
  if (queue.size === 0 && arrived === undefined && owedWakes.size === 0) {
    return NONE;
  }
  const models = queue.models();
  for (const model of arrived === undefined ? owedWakes : [arrived, ...owedWakes]) {
    if (!models.includes(model)) {
      models.push(model);
    }
  }
  return models;
}

/** When the wait a plan for `model` is for began, when no request waits in its queue. */
export function unqueuedSince(books: Ledger, model: string, now: number): number {
  return books.owedWakes.has(model) ? Number.POSITIVE_INFINITY : now;
}

/** After a plan for `model`: it is (or stays) owed a wake while the plan waits on a node coming. */
export function settleOwed(books: Ledger, model: string, plan: Plan, arrived?: string): void {
  if (plan.kind === 'coming' && (model === arrived || books.owedWakes.has(model))) {
    books.owedWakes.add(model);
  } else {
    books.owedWakes.delete(model);
  }
}
