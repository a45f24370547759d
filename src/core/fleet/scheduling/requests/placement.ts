/**
 * Where one request goes (spec §4.2 rule 3 with docs/design.md D12 and D25), pure: among the nodes
 * ready to serve its model that take another of ours (slots.ts), those that look free counting
 * others' requests come first; within them, the one its leading prompt was last sent to, else the
 * best-ranked. None when every one is full of ours.
 *
 * Ranking is `prefer` over activity, file order breaking ties, as route.ts ranks. Activity is the
 * node's own `lastActiveAt` or our latest send to it, whichever is newer: `lastActiveAt` is a
 * refresh old, so ranking on it alone sends a whole burst to the one node that looked idle; with
 * our own sends counted, `prefer: idle` spreads a burst and `prefer: active` keeps it together.
 */
import type { Preference } from '../../file/fleet-file.ts';
import { type NodeRecord, readyFor } from '../nodes/nodes.ts';
import { hasFreeSlot, seemsFree } from './slots.ts';

/** The newest activity ranking reads; undefined: never active. */
export function activity(record: NodeRecord): number | undefined {
  const theirs = record.view?.lastActiveAt;
  const ours = record.ownActivityAt;
  if (theirs === undefined) {
    return ours;
  }
  return ours === undefined ? theirs : Math.max(theirs, ours);
}

/** Orders `a` before `b` (negative) by docs/design.md D12: never-active counts as the most idle. */
export function compareByPreference(prefer: Preference, a: NodeRecord, b: NodeRecord): number {
  const aAt = activity(a) ?? Number.NEGATIVE_INFINITY;
  const bAt = activity(b) ?? Number.NEGATIVE_INFINITY;
  if (aAt !== bAt) {
    const idleFirst = aAt < bAt ? -1 : 1;
    return prefer === 'idle' ? idleFirst : -idleFirst;
  }
  return a.order - b.order;
}

/**
 * The node `model`'s next request goes to, or undefined when every ready node is full.
 * `records` are those that may serve it, in any order (ties go by file order);
 * `affinityNode` is where its leading prompt last went.
 */
export function place(
  records: Iterable<NodeRecord>,
  model: string,
  prefer: Preference,
  affinityNode: string | undefined,
): NodeRecord | undefined {
  let best: NodeRecord | undefined;
  let bestFree = false;
  let affine: NodeRecord | undefined;
  for (const record of records) {
    if (!readyFor(record, model) || !hasFreeSlot(record)) {
      continue;
    }
    const free = seemsFree(record);
    if (record.settings.name === affinityNode) {
      if (free) {
        return record;
      }
      affine = record;
    }
    if (
      best === undefined ||
      (free && !bestFree) ||
      (free === bestFree && compareByPreference(prefer, record, best) < 0)
    ) {
      best = record;
      bestFree = free;
    }
  }
  // Where none looks free, the engine holding the prompt is worth its queue.
  return bestFree ? best : (affine ?? best);
}
