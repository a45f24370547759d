/**
 * When the scheduler next has something to decide with no event to prompt it, pure: the earliest
 * of a waiting request's deadline (deadlines.ts), an idle stop falling due (idle-stop.ts), and a
 * group member's residency ending while requests wait for its group (groups.ts). The gateway
 * arms one timer for it and feeds a `tick`; after each step the answer is in the future.
 */
import { deadlineOf } from './deadlines.ts';
import { nextResidencyEnd } from './groups.ts';
import { idleStopAt } from './idle-stop.ts';
import type { Ledger } from './ledger.ts';
import { isQuiet } from './nodes.ts';

export function nextDueAt(books: Ledger, now: number): number | undefined {
  let due: number | undefined;
  const consider = (at: number | undefined): void => {
    if (at !== undefined && (due === undefined || at < due)) {
      due = at;
    }
  };
  const { queue, settings } = books;
  for (const model of queue.models()) {
    const head = queue.head(model);
    if (head !== undefined) {
      const since = books.readySince.get(model);
      consider(deadlineOf(head, since, books.limits(model), settings.wakeTimeoutMs));
    }
  }
  // Only a node that could be stopped when its time comes: an end or a view prompts the others.
  for (const record of books.idleWatched) {
    const free = record.waking === undefined && record.stopping === undefined;
    if (free && isQuiet(record) && books.queuedFor(record) === 0) {
      consider(idleStopAt(record));
    }
  }
  if (queue.size > 0) {
    for (const group of books.groups.values()) {
      consider(nextResidencyEnd(group, now));
    }
  }
  return due;
}
