/**
 * The waiting requests: one line per requested model (docs/design.md D25), each entry stamped with
 * when it began to wait, kept in arrival order (deadlines, positions) and in its caller's lane for
 * who goes next (fair-lanes.ts, docs/design.md D29; without callers, first in, first out). A
 * caller that hangs up is removed at once, wherever it stands. The bound and the deadlines are the
 * scheduler's; this is only the order.
 */
import type { RequestId, RequestInfo } from '../types.ts';
import { FairLanes, type MayRun } from './fair-lanes.ts';

export interface Waiting extends RequestInfo {
  readonly enqueuedAt: number;
}

interface Line {
  /** Oldest first. */
  readonly order: Waiting[];
  readonly lanes: FairLanes<Waiting>;
}

export class WaitQueue {
  private readonly byModel = new Map<string, Line>();
  private readonly byId = new Map<RequestId, Waiting>();

  get size(): number {
    return this.byId.size;
  }

  has(id: RequestId): boolean {
    return this.byId.has(id);
  }

  get(id: RequestId): Waiting | undefined {
    return this.byId.get(id);
  }

  /** Appends at the model's tail. */
  add(entry: Waiting): void {
    let line = this.byModel.get(entry.model);
    if (line === undefined) {
      line = { order: [], lanes: new FairLanes() };
      this.byModel.set(entry.model, line);
    }
    line.order.push(entry);
    line.lanes.add(entry);
    this.byId.set(entry.id, entry);
  }

  /**
   * Who goes next for the model when a slot frees: fair shares across callers (fair-lanes.ts),
   * passing over those `mayRun` says are at their `concurrency`.
   */
  next(model: string, mayRun: MayRun): Waiting | undefined {
    return this.byModel.get(model)?.lanes.next(mayRun);
  }

  /** The entry `next` named is dispatched: out of the queue, its caller's turn used. */
  take(entry: Waiting): void {
    this.byModel.get(entry.model)?.lanes.take(entry);
    this.remove(entry.id);
  }

  /** Takes the entry out wherever it stands (dispatched, rejected, or its caller hung up). */
  remove(id: RequestId): Waiting | undefined {
    const entry = this.byId.get(id);
    if (entry === undefined) {
      return undefined;
    }
    this.byId.delete(id);
    const line = this.byModel.get(entry.model);
    if (line === undefined) {
      return entry;
    }
    // The head is the common case (dispatch, timeout); a hang-up may stand anywhere.
    const index = line.order[0] === entry ? 0 : line.order.indexOf(entry);
    line.order.splice(index, 1);
    if (line.order.length === 0) {
      // Nobody waits: no share is owed, and the next wait starts even.
      this.byModel.delete(entry.model);
    } else {
      line.lanes.remove(entry);
    }
    return entry;
  }

  head(model: string): Waiting | undefined {
    return this.byModel.get(model)?.order[0];
  }

  length(model: string): number {
    return this.byModel.get(model)?.order.length ?? 0;
  }

  /** The model's waiting entries, oldest first. */
  entries(model: string): readonly Waiting[] {
    return this.byModel.get(model)?.order ?? [];
  }

  /** 1-based place in its model's line, or undefined when it is not waiting. */
  position(id: RequestId): number | undefined {
    const entry = this.byId.get(id);
    return entry === undefined ? undefined : this.entries(entry.model).indexOf(entry) + 1;
  }

  /** Models with someone waiting, the one waiting longest first: the order slots are offered in. */
  models(): string[] {
    // Asked several times per scheduler step: the common cases (none or one model) without a sort.
    if (this.byModel.size <= 1) {
      return [...this.byModel.keys()];
    }
    return [...this.byModel.entries()]
      .sort(([, a], [, b]) => (a.order[0]?.enqueuedAt ?? 0) - (b.order[0]?.enqueuedAt ?? 0))
      .map(([model]) => model);
  }

  /** How many wait for each model. */
  counts(): ReadonlyMap<string, number> {
    return new Map([...this.byModel].map(([model, line]) => [model, line.order.length]));
  }
}
