/**
 * The upstream step of an arrival (docs/design.md D30), pure: what the fleet's own nodes would do
 * (arrival.ts), then upstream-choice.ts's rule over the upstream nodes that run and serve the
 * model. Upstream nodes serve nothing in the scheduler's views, so ordinary placement never picks
 * one; only this step sends a request there.
 */
import type { Ledger } from '../ledger.ts';
import type { NodeRecord } from '../nodes/nodes.ts';
import type { Arrival } from './arrival-kind.ts';
import { hasFreeSlot, retryAfterSeconds } from './slots.ts';
import { type LocalOutcome, type UpstreamCandidate, upstreamChoice } from './upstream-choice.ts';

function outcomeOf(arrival: Arrival): LocalOutcome {
  switch (arrival.kind) {
    case 'dispatch':
      return 'dispatch';
    case 'queue':
      return arrival.waitsFor === 'slot' ? 'queue' : 'wake';
    case 'refuse':
      return arrival.reason === 'no_node'
        ? 'none'
        : arrival.reason === 'wake_not_allowed'
          ? 'wakeRefused'
          : 'queueFull';
  }
}

/** The upstream nodes running and serving `model`, in file order. */
function upstreamsFor(books: Ledger, model: string): NodeRecord[] {
  const found: NodeRecord[] = [];
  for (const record of books.byName.values()) {
    if (record.settings.upstream?.includes(model) === true && record.view?.state === 'running') {
      found.push(record);
    }
  }
  return found.sort((a, b) => a.order - b.order);
}

export function withUpstreams(
  books: Ledger,
  request: { readonly model: string; readonly mayUseUpstreams?: false },
  local: Arrival,
  now: number,
): Arrival {
  const { model } = request;
  if (
    local.kind === 'dispatch' ||
    books.settings.nodes.every((node) => node.upstream === undefined)
  ) {
    return local;
  }
  const records = upstreamsFor(books, model);
  const candidates: UpstreamCandidate[] = records.map((record) => ({
    name: record.settings.name,
    free: hasFreeSlot(record),
  }));
  const fallback = books.settings.fallbacks?.get(model);
  const choice = upstreamChoice({
    local: outcomeOf(local),
    upstreams: candidates,
    ...(fallback === undefined ? {} : { fallback }),
    mayUseUpstreams: request.mayUseUpstreams !== false,
  });
  const node = (name: string): NodeRecord =>
    records.find((record) => record.settings.name === name) as NodeRecord;
  switch (choice.kind) {
    case 'local':
      return local;
    case 'upstream':
      return { kind: 'dispatch', node: node(choice.node) };
    case 'fallback':
      return { kind: 'dispatch', node: node(choice.node), fallback: choice.reason };
    case 'full':
      return {
        kind: 'refuse',
        reason: 'queue_full',
        retryAfterSeconds: retryAfterSeconds(books.rateFor(model, now), 1),
      };
  }
}
