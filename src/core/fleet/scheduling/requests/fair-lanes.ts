/**
 * Fair shares among the callers waiting for one model (docs/design.md D29), pure: weighted round
 * robin by stride scheduling. Each caller has a lane, first in, first out, with a pass; the lane
 * with the lowest pass whose caller may run one more request goes next, and its pass then grows by
 * 1/weight, so backlogged callers are served in proportion to their weights. A lane's pass never
 * lags the line's clock (the pass of the last pick): a caller that was not waiting, or was passed
 * over at its `concurrency`, has no credit saved to spend in a burst. Ties go to the older head.
 * Requests without a caller share one lane: first in, first out, exactly as before callers.
 *
 * A pick reads each lane of the model once: O(callers waiting for it), bounded by the fleet file
 * and independent of the nodes and of the queue's length.
 */
import type { CallerPriority } from '../../file/fleet-file.ts';
import type { CallerShare, RequestId } from '../types.ts';

/** docs/design.md D29: the weights of `priority`. */
export const PRIORITY_WEIGHTS: Readonly<Record<CallerPriority, number>> = {
  high: 4,
  normal: 2,
  low: 1,
};

/** A caller's share as the scheduler takes it, from its fleet-file settings. */
export function callerShare(caller: {
  readonly name: string;
  readonly priority: CallerPriority;
  readonly concurrency?: number;
}): CallerShare {
  return {
    name: caller.name,
    weight: PRIORITY_WEIGHTS[caller.priority],
    ...(caller.concurrency === undefined ? {} : { concurrency: caller.concurrency }),
  };
}

/** What a lane holds: enough to order it. */
export interface Laned {
  readonly id: RequestId;
  readonly enqueuedAt: number;
  readonly caller?: CallerShare;
}

/** Whether the request's caller may have one more in flight now (running-requests.ts). */
export type MayRun = (caller: CallerShare | undefined) => boolean;

interface Lane<E> {
  readonly entries: E[];
  pass: number;
}

const NO_CALLER = '';

const laneOf = (entry: Laned): string => entry.caller?.name ?? NO_CALLER;

const older = (a: Laned, b: Laned): boolean =>
  a.enqueuedAt < b.enqueuedAt || (a.enqueuedAt === b.enqueuedAt && a.id < b.id);

export class FairLanes<E extends Laned> {
  private readonly lanes = new Map<string, Lane<E>>();
  private clock = 0;

  add(entry: E): void {
    const key = laneOf(entry);
    const lane = this.lanes.get(key);
    if (lane === undefined) {
      this.lanes.set(key, { entries: [entry], pass: this.clock });
    } else {
      lane.entries.push(entry);
    }
  }

  /** Who goes next, without taking it; undefined when every waiting caller is at its limit. */
  next(mayRun: MayRun): E | undefined {
    let best: E | undefined;
    let bestPass = 0;
    for (const lane of this.lanes.values()) {
      const head = lane.entries[0];
      if (head === undefined || !mayRun(head.caller)) {
        continue;
      }
      const pass = Math.max(lane.pass, this.clock);
      if (best === undefined || pass < bestPass || (pass === bestPass && older(head, best))) {
        best = head;
        bestPass = pass;
      }
    }
    return best;
  }

  /** The entry goes (dispatched): its caller's turn is used. */
  take(entry: E): void {
    const lane = this.drop(entry);
    if (lane !== undefined) {
      const pass = Math.max(lane.pass, this.clock);
      this.clock = pass;
      lane.pass = pass + 1 / (entry.caller?.weight ?? 1);
    }
  }

  /** The entry leaves without its turn (refused, or its caller hung up). */
  remove(entry: E): void {
    this.drop(entry);
  }

  private drop(entry: E): Lane<E> | undefined {
    const lane = this.lanes.get(laneOf(entry));
    if (lane === undefined) {
      return undefined;
    }
    // The head is the common case (dispatch, timeout); a hang-up may stand anywhere.
    const index = lane.entries[0] === entry ? 0 : lane.entries.indexOf(entry);
    if (index >= 0) {
      lane.entries.splice(index, 1);
    }
    return lane;
  }
}
