/**
 * When the scheduler next has something to decide with no event to prompt it, pure: the earliest
 * of a waiting request's deadline (deadlines.ts), an idle stop falling due or a fresh read of a
 * node's activity (idle-stop.ts), and a group member's residency ending while requests wait for
 * its group (groups.ts). The gateway arms one timer for it and feeds a `tick`; after each step
 * the answer is in the future.
 */
import type { Ledger } from './ledger.ts';
import { nextResidencyEnd } from './nodes/groups.ts';
import { idleDueOf } from './nodes/idle-due.ts';
import { deadlineOf } from './requests/deadlines.ts';

const earlier = (due: number | undefined, at: number | undefined): number | undefined =>
  at !== undefined && (due === undefined || at < due) ? at : due;

export function nextDueAt(books: Ledger, now: number): number | undefined {
  let due: number | undefined;
  const { queue, settings } = books;
  for (const model of queue.models()) {
    const head = queue.head(model);
    if (head !== undefined) {
      const since = books.readySince.get(model);
      due = earlier(due, deadlineOf(head, since, books.limits(model), settings.wakeTimeoutMs));
    }
  }
  // Only a node that could be stopped when its time comes: an end or a view prompts the others.
  if (queue.size === 0) {
    // Nothing waits for any node: each one's own state decides, kept as it changes.
    due = earlier(due, books.idleDue.earliest());
  } else {
    for (const record of books.idleWatched) {
      if (books.queuedFor(record) === 0) {
        due = earlier(due, idleDueOf(record));
      }
    }
  }
  if (queue.size > 0) {
    for (const group of books.groups.values()) {
      due = earlier(due, nextResidencyEnd(group, now));
    }
  }
  return due;
}
