/**
 * What time and views alone do to nodes, never a request's arrival or end: idle stops (each
 * decided on a fresh read of the node's activity asked once it fell due, idle-stop.ts) and
 * keep-warm starts (keep-warm.ts; a member of a group that clashes with running members of
 * another, exclusive.ts, stops the idle ones first and is started once they have stopped; one
 * held by a busy member is not started). Pure: the actions go into `actions`.
 */
import type { Ledger } from '../ledger.ts';
import type { Action } from '../types.ts';
import { clearance, isClear } from './exclusive.ts';
import { activityReadDue, idleStopDue } from './idle-stop.ts';
import { keepWarmModel, keepWarmPending } from './keep-warm.ts';

export function upkeep(books: Ledger, now: number, actions: Action[]): void {
  for (const record of books.idleWatched) {
    if (idleStopDue(record, books.queuedFor(record), now)) {
      actions.push(books.stop(record, 'idle', now));
      continue;
    }
    const read = activityReadDue(record);
    if (read !== undefined && read <= now) {
      actions.push(books.read(record, now));
    }
  }
  for (const record of books.records) {
    if (keepWarmPending(record)) {
      const group = books.groupOf(record);
      const model = keepWarmModel(record, group);
      const clear = clearance(books.groups, group, (m) => books.queuedFor(m), now);
      if (model !== undefined && clear.held.every((entry) => entry.hold.why === 'stopping')) {
        // docs/design.md D31: an exclusive start stops the idle clashing members first, and is
        // decided once they have stopped.
        for (const member of clear.idle) {
          actions.push(books.stop(member, 'swap', now, group?.name));
        }
        if (!isClear(clear)) {
          continue;
        }
      }
      record.warmDecided = true;
      if (model !== undefined && isClear(clear)) {
        actions.push(books.wake(record, model, 'keep-warm', now));
      }
    }
  }
}
