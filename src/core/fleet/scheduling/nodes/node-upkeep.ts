/**
 * What time and views alone do to nodes, never a request's arrival or end: idle stops (each
 * decided on a fresh read of the node's activity asked once it fell due, idle-stop.ts) and
 * keep-warm starts (keep-warm.ts). Pure: the actions go into `actions`.
 */
import type { Ledger } from '../ledger.ts';
import type { Action } from '../types.ts';
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
      record.warmDecided = true;
      const model = keepWarmModel(record, books.groupOf(record));
      if (model !== undefined) {
        actions.push(books.wake(record, model, 'keep-warm', now));
      }
    }
  }
}
