/**
 * The route's words for upstream nodes and fallbacks (docs/design.md D30, D33), pure, beside
 * route-decision.ts: a dispatch to an upstream node says it is one, a fallback says why and which
 * node its wake still starts, and an upstream node not chosen says when it would be (it serves
 * nothing in the scheduler's views, so the ordinary verdicts would call it a node of another
 * model).
 */
import type { FallbackReason } from '../file/fleet-file.ts';
import type { Ledger } from './ledger.ts';
import type { NodeRecord } from './nodes/nodes.ts';
import { planFor } from './nodes/wakes.ts';
import { hasFreeSlot } from './requests/slots.ts';

/** A dispatch as the route tells it; `wakes`: the node a waking fallback still wakes. */
export interface DispatchTold {
  readonly action: 'serve' | 'fallback';
  readonly node: string;
  readonly stops: readonly string[];
  readonly reason: string;
  readonly wakes?: string;
}

/**
 * What a request for `model` would have waited for, were the fallback not to answer it: the node
 * it wakes (which still starts), or the one already coming up.
 */
function meanwhile(books: Ledger, model: string, now: number): { text: string; wakes?: string } {
  const plan = planFor(books.context(now), model, now);
  switch (plan.kind) {
    case 'wake':
    case 'swap': {
      const wakes = plan.node.settings.name;
      return { text: `; "${wakes}" is woken for ${model} meanwhile`, wakes };
    }
    case 'coming':
      return { text: `; "${plan.node}" is already coming up with ${model}` };
    default:
      return { text: '' };
  }
}

export function dispatchTold(
  books: Ledger,
  model: string,
  arrival: { readonly node: NodeRecord; readonly fallback?: FallbackReason },
  now: number,
): DispatchTold {
  const name = arrival.node.settings.name;
  if (arrival.node.settings.upstream === undefined) {
    return {
      action: 'serve',
      node: name,
      stops: [],
      reason: `"${name}" serves ${model} and has a free slot`,
    };
  }
  if (arrival.fallback === undefined) {
    return {
      action: 'serve',
      node: name,
      stops: [],
      reason: `upstream node "${name}" serves ${model} and has a free slot: no other node can take it now`,
    };
  }
  const { text, wakes } =
    arrival.fallback === 'waking' ? meanwhile(books, model, now) : { text: '', wakes: undefined };
  return {
    action: 'fallback',
    node: name,
    stops: [],
    reason: `upstream node "${name}" answers ${model} as its fallback (${arrival.fallback})${text}`,
    ...(wakes === undefined ? {} : { wakes }),
  };
}

/** What the ordinary verdicts cannot say: an upstream node's part, or the node a fallback wakes. */
export function upstreamVerdict(
  books: Ledger,
  record: NodeRecord,
  model: string,
  told: { readonly action: string; readonly node?: string; readonly wakes?: string },
): { verdict: 'serve' | 'wake' | 'ready' | 'full' | 'other'; reason: string } | undefined {
  const name = record.settings.name;
  if (told.wakes === name) {
    return { verdict: 'wake', reason: `woken for ${model} while the fallback answers` };
  }
  const serves = record.settings.upstream;
  if (serves === undefined || record.view?.state !== 'running') {
    return undefined;
  }
  if (told.node === name) {
    return {
      verdict: 'serve',
      reason: `upstream node: ${told.action === 'fallback' ? `answers ${model} as its fallback` : `serves ${model}`}`,
    };
  }
  if (!serves.includes(model)) {
    return { verdict: 'other', reason: `upstream node serving ${serves.join(', ')}, not ${model}` };
  }
  const fallback = books.settings.fallbacks?.get(model);
  const when = fallback?.to === name ? `, or as its fallback (${fallback.when.join(', ')})` : '';
  return hasFreeSlot(record)
    ? {
        verdict: 'ready',
        reason: `upstream node: takes ${model} only when no other node can serve it now${when}`,
      }
    : { verdict: 'full', reason: `upstream node: all ${String(record.slots ?? 0)} slots busy` };
}
