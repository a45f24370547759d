/**
 * The requests in flight through this gateway: where each runs, for which model, since when, and
 * whose it is. Each caller's count is kept as requests start and end (docs/design.md D29
 * `concurrency`), so the queue passes over a caller at its limit and an end lets it run again.
 * The counts are this gateway's own: replicas do not share them, so a caller's limit holds per
 * gateway.
 */
import type { NodeRecord } from '../nodes/nodes.ts';
import type { CallerShare, RequestId } from '../types.ts';
import type { MayRun } from './fair-lanes.ts';

/** One request in flight: where it runs, for which model, since when, for whom. */
export interface Running {
  readonly node: NodeRecord;
  readonly model: string;
  readonly since: number;
  readonly caller: CallerShare | undefined;
}

export class RunningRequests extends Map<RequestId, Running> {
  private readonly byCaller = new Map<string, number>();

  /** Whether the caller may have one more request in flight now. */
  readonly mayRun: MayRun = (caller) =>
    caller?.concurrency === undefined || this.inFlightOf(caller.name) < caller.concurrency;

  override set(id: RequestId, running: Running): this {
    this.count(this.get(id), -1);
    this.count(running, 1);
    return super.set(id, running);
  }

  override delete(id: RequestId): boolean {
    this.count(this.get(id), -1);
    return super.delete(id);
  }

  override clear(): void {
    this.byCaller.clear();
    super.clear();
  }

  /** The caller's requests in flight here. */
  inFlightOf(name: string): number {
    return this.byCaller.get(name) ?? 0;
  }

  private count(running: Running | undefined, by: 1 | -1): void {
    const name = running?.caller?.name;
    if (name === undefined) {
      return;
    }
    const left = this.inFlightOf(name) + by;
    if (left === 0) {
      this.byCaller.delete(name);
    } else {
      this.byCaller.set(name, left);
    }
  }
}
