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
 * - Exclusive groups (exclusive.ts, docs/design.md D31): once its own group has room, the start
 *   also waits for every clashing member of another group to stop: the idle ones are stopped at
 *   once; a busy one (or one within its residency, or coming up) refuses the start naming it,
 *   unless forced, which stops it too. Nothing is stopped before a start that is refused.
 * Starts waiting for room are settled before requests' wakes, in the order they came.
 */
import type { Ledger } from '../ledger.ts';
import type { Action, StartId } from '../types.ts';
import { clearance, firstHeld, isClear } from './exclusive.ts';
import { hasSpace, holder, makingRoom, victim } from './groups.ts';
import { type NodeRecord, occupies } from './nodes.ts';

type Decision =
  | { readonly kind: 'start'; readonly booked: boolean }
  | { readonly kind: 'wait' }
  | {
      readonly kind: 'stop';
      readonly members: readonly { readonly member: NodeRecord; readonly forced: boolean }[];
    }
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
    return cleared(books, id, record, force, now);
  }
  if (makingRoom(group)) {
    return { kind: 'wait' };
  }
  const chosen = victim(group, queuedFor, now);
  if (chosen !== undefined) {
    return { kind: 'stop', members: [{ member: chosen, forced: false }] };
  }
  const first = holder(group, queuedFor, now);
  const member = first === undefined ? undefined : books.byName.get(first.holder);
  if (force && member !== undefined && forcible(member)) {
    return { kind: 'stop', members: [{ member, forced: true }] };
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

/** A start whose own group has room: the clashing members of other groups go first. */
function cleared(
  books: Ledger,
  id: StartId,
  record: NodeRecord,
  force: boolean,
  now: number,
): Decision {
  const clear = clearance(books.groups, books.groupOf(record), (m) => books.queuedFor(m), now);
  if (isClear(clear)) {
    return { kind: 'start', booked: true };
  }
  const blocking = clear.held.filter((entry) => entry.hold.why !== 'stopping');
  const first = firstHeld({ idle: [], held: blocking });
  if (first !== undefined && !(force && blocking.every((entry) => forcible(entry.member)))) {
    return {
      kind: 'refuse',
      refusal: { kind: 'start-refused', id, node: record.settings.name, ...first },
    };
  }
  const members = [
    ...clear.idle.map((member) => ({ member, forced: false })),
    ...blocking.map((entry) => ({ member: entry.member, forced: true })),
  ];
  return members.length === 0 ? { kind: 'wait' } : { kind: 'stop', members };
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
        for (const { member, forced } of decision.members) {
          actions.push(books.stop(member, 'swap', now, group, forced));
        }
        break;
      }
      case 'refuse':
        books.starts.delete(id);
        actions.push(decision.refusal);
        break;
    }
  }
}
