/**
 * An operator's start (docs/design.md D33: API, CLI, dashboard, page alike), pure: the same group
 * rules a request's wake follows (groups.ts), so a group is never over its `max` whoever asks.
 *
 * - A node already up or coming (running, starting, ours waking) holds its share: start it as
 *   asked, nothing to make room for. One we are stopping is waited for first.
 * - In a group with room, or in none: start it now.
 * - In a full group: while a member is stopping, wait; else stop the member a swap would (idle,
 *   past `minResidency`: groups.ts `victim`) and start once its stop ends.
 * - When none may go: refused, naming the member first in line and why (409 `group_busy`), unless
 *   forced, which stops that member anyway, as a forced stop does (its requests are cut). A
 *   member we are waking, or whose stop failed, is never force-stopped: the refusal names it.
 * Starts waiting for room are settled before requests' wakes, in the order they came.
 */
import type { Ledger } from '../ledger.ts';
import type { Action, StartId } from '../types.ts';
import { hasSpace, holder, makingRoom, victim } from './groups.ts';
import { type NodeRecord, occupies } from './nodes.ts';

type Decision =
  | { readonly kind: 'start'; readonly booked: boolean }
  | { readonly kind: 'wait' }
  | { readonly kind: 'stop'; readonly member: NodeRecord; readonly forced: boolean }
  | { readonly kind: 'refuse'; readonly refusal: Action };

/** May a forced start stop it: up, and nothing of ours under way on it. */
function forcible(member: NodeRecord): boolean {
  return (
    member.waking === undefined &&
    member.stopping === undefined &&
    member.unsureSince === undefined &&
    occupies(member)
  );
}

function decide(
  books: Ledger,
  id: StartId,
  record: NodeRecord,
  force: boolean,
  now: number,
): Decision {
  if (record.stopping !== undefined) {
    return { kind: 'wait' };
  }
  if (occupies(record)) {
    return { kind: 'start', booked: false };
  }
  const group = books.groupOf(record);
  if (group === undefined) {
    return { kind: 'start', booked: true };
  }
  const queuedFor = (member: NodeRecord): number => books.queuedFor(member);
  if (hasSpace(group)) {
    return { kind: 'start', booked: true };
  }
  if (makingRoom(group)) {
    return { kind: 'wait' };
  }
  const chosen = victim(group, queuedFor, now);
  if (chosen !== undefined) {
    return { kind: 'stop', member: chosen, forced: false };
  }
  const first = holder(group, queuedFor, now);
  const member = first === undefined ? undefined : books.byName.get(first.holder);
  if (force && member !== undefined && forcible(member)) {
    return { kind: 'stop', member, forced: true };
  }
  const hold = first ?? { holder: '', why: 'starting' as const };
  const refusal: Action = {
    kind: 'start-refused',
    id,
    node: record.settings.name,
    group: group.name,
    ...hold,
  };
  return { kind: 'refuse', refusal };
}

/** Answers every start that can be answered now; the rest wait for a stop to end. */
export function settleStarts(books: Ledger, now: number, actions: Action[]): void {
  for (const [id, { node, force }] of books.starts) {
    const record = books.byName.get(node);
    if (record === undefined) {
      books.starts.delete(id);
      actions.push({ kind: 'start', id, node, already: true });
      continue;
    }
    const decision = decide(books, id, record, force, now);
    switch (decision.kind) {
      case 'wait':
        break;
      case 'start':
        books.starts.delete(id);
        actions.push(
          decision.booked
            ? books.start(record, id, now)
            : { kind: 'start', id, node, already: true },
        );
        break;
      case 'stop': {
        const group = record.settings.group;
        actions.push(books.stop(decision.member, 'swap', now, group, decision.forced));
        break;
      }
      case 'refuse':
        books.starts.delete(id);
        actions.push(decision.refusal);
        break;
    }
  }
}
