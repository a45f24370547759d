/**
 * The waiting requests: one FIFO per requested model (docs/design.md D25), each entry stamped with
 * when it began to wait. A caller that hangs up is removed at once, wherever it stands. The bound
 * and the deadlines are the scheduler's; this is only the order.
 */
import type { RequestId, RequestInfo } from '../types.ts';

export interface Waiting extends RequestInfo {
  readonly enqueuedAt: number;
}

export class WaitQueue {
  private readonly byModel = new Map<string, Waiting[]>();
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
      line = [];
      this.byModel.set(entry.model, line);
    }
    line.push(entry);
    this.byId.set(entry.id, entry);
  }

  /** Takes the entry out wherever it stands (dispatched, rejected, or its caller hung up). */
  remove(id: RequestId): Waiting | undefined {
    const entry = this.byId.get(id);
    if (entry === undefined) {
      return undefined;
    }
    this.byId.delete(id);
    const line = this.byModel.get(entry.model) ?? [];
    // The head is the common case (dispatch, timeout); a hang-up may stand anywhere.
    const index = line[0] === entry ? 0 : line.indexOf(entry);
    line.splice(index, 1);
    if (line.length === 0) {
      this.byModel.delete(entry.model);
    }
    return entry;
  }

  head(model: string): Waiting | undefined {
    return this.byModel.get(model)?.[0];
  }

  length(model: string): number {
    return this.byModel.get(model)?.length ?? 0;
  }

  /** The model's waiting entries, oldest first. */
  entries(model: string): readonly Waiting[] {
    return this.byModel.get(model) ?? [];
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
      .sort(([, a], [, b]) => (a[0]?.enqueuedAt ?? 0) - (b[0]?.enqueuedAt ?? 0))
      .map(([model]) => model);
  }

  /** How many wait for each model. */
  counts(): ReadonlyMap<string, number> {
    return new Map([...this.byModel].map(([model, line]) => [model, line.length]));
  }
}
