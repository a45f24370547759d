/**
 * A small world for the queue's fair shares (docs/design.md D29): one node with a few slots, a few
 * callers of given weights and limits, and a real scheduler. Every action is applied and checked
 * as it comes: each request answered exactly once; no caller over its `concurrency`; no slot left
 * free while someone who may run waits; and a caller waiting while it may run is passed by the
 * others at most Σ (⌊w_other / w_self⌋ + 1) times before it goes (stride scheduling's bound).
 * A broken rule throws, naming it, so fast-check shrinks to the shortest counterexample.
 */
import type { Action, CallerShare, RequestId } from '../../../src/core/fleet/scheduling/types.ts';
import { Harness, running } from './scheduling.ts';

export interface FairCaller {
  readonly weight: 1 | 2 | 4;
  readonly concurrency?: number;
}

export interface FairSpec {
  readonly slots: number;
  readonly callers: readonly FairCaller[];
  readonly queue: { readonly max: number; readonly timeoutMs: number };
}

export type FairCommand =
  | { readonly kind: 'arrive'; readonly caller: number }
  | { readonly kind: 'end'; readonly pick: number }
  | { readonly kind: 'hang-up'; readonly pick: number }
  | { readonly kind: 'advance'; readonly ms: number };

export class FairWorld {
  readonly harness: Harness;
  private readonly shares: CallerShare[];
  private nextId = 1;
  /** Waiting and in-flight requests, by id, with their caller's index; insertion = arrival order. */
  private readonly waiting = new Map<RequestId, number>();
  private readonly inFlight = new Map<RequestId, number>();
  private readonly answered = new Set<RequestId>();
  /** Per caller: the others' dispatches since it last went while it waited and could run. */
  private readonly passedBy: number[];
  /** Dispatches per caller, in order. */
  readonly dispatched: number[] = [];

  constructor(readonly spec: FairSpec) {
    this.shares = spec.callers.map((caller, index) => ({
      name: `c${index}`,
      weight: caller.weight,
      ...(caller.concurrency === undefined ? {} : { concurrency: caller.concurrency }),
    }));
    this.passedBy = spec.callers.map(() => 0);
    this.harness = new Harness({ nodes: [{ name: 'a' }], queue: spec.queue }, [
      running('a', { slots: spec.slots }),
    ]);
  }

  run(command: FairCommand): void {
    const h = this.harness;
    switch (command.kind) {
      case 'arrive': {
        const id = this.nextId;
        this.nextId += 1;
        const caller = command.caller % this.shares.length;
        this.waiting.set(id, caller);
        const share = this.shares[caller] as CallerShare;
        this.apply(
          h.step({
            kind: 'arrive',
            request: { id, model: 'chat', streaming: false, caller: share },
          }),
        );
        return;
      }
      case 'end': {
        const id = [...this.inFlight.keys()][command.pick % Math.max(1, this.inFlight.size)];
        if (id !== undefined) {
          this.inFlight.delete(id);
          this.apply(h.end(id));
        }
        return;
      }
      case 'hang-up': {
        const id = [...this.waiting.keys()][command.pick % Math.max(1, this.waiting.size)];
        if (id !== undefined) {
          this.waiting.delete(id);
          this.answered.add(id);
          this.apply(h.end(id));
        }
        return;
      }
      case 'advance':
        this.apply(h.advance(command.ms));
    }
  }

  /** Ends every request in flight until nothing waits: every caller must then have its answer. */
  settle(): void {
    for (let round = 0; this.inFlight.size > 0 || this.waiting.size > 0; round += 1) {
      if (round > 10_000) {
        throw new Error('lost: requests still wait with nothing in flight to end');
      }
      const id = this.inFlight.keys().next().value;
      if (id === undefined) {
        // Nothing in flight and someone waits: only its deadline can answer it.
        this.apply(this.harness.advance(this.spec.queue.timeoutMs));
        continue;
      }
      this.inFlight.delete(id);
      this.apply(this.harness.end(id));
    }
    if (this.answered.size !== this.nextId - 1) {
      throw new Error(`lost: ${this.nextId - 1} arrived, ${this.answered.size} answered`);
    }
  }

  private mayRun(caller: number): boolean {
    const limit = this.spec.callers[caller]?.concurrency;
    return limit === undefined || this.inFlightOf(caller) < limit;
  }

  private inFlightOf(caller: number): number {
    return [...this.inFlight.values()].filter((c) => c === caller).length;
  }

  private apply(actions: readonly Action[]): void {
    for (const action of actions) {
      if (action.kind === 'dispatch') {
        this.dispatch(action.id);
      } else if (action.kind === 'reject') {
        if (!this.waiting.delete(action.id)) {
          throw new Error(`request ${action.id} refused while not waiting`);
        }
        this.answer(action.id);
      }
    }
    this.checkWorkConserving();
  }

  private dispatch(id: RequestId): void {
    const caller = this.waiting.get(id);
    if (caller === undefined) {
      throw new Error(`request ${id} dispatched while not waiting`);
    }
    if (!this.mayRun(caller)) {
      throw new Error(`c${caller} over its concurrency with request ${id}`);
    }
    const firstOfCaller = [...this.waiting].find(([, c]) => c === caller)?.[0];
    if (firstOfCaller !== id) {
      throw new Error(`c${caller}: request ${id} went before its own ${firstOfCaller}`);
    }
    this.checkBypass(caller);
    this.waiting.delete(id);
    this.inFlight.set(id, caller);
    this.dispatched.push(caller);
    this.answer(id);
  }

  private checkBypass(caller: number): void {
    const weights = this.spec.callers.map((c) => c.weight);
    const waitingCallers = new Set(this.waiting.values());
    this.passedBy.forEach((passed, other) => {
      if (other === caller) {
        this.passedBy[other] = 0;
        return;
      }
      if (!waitingCallers.has(other) || !this.mayRun(other)) {
        this.passedBy[other] = 0;
        return;
      }
      this.passedBy[other] = passed + 1;
      const own = weights[other] as number;
      const bound = weights.reduce(
        (sum, w, index) => (index === other ? sum : sum + Math.floor(w / own) + 1),
        0,
      );
      if (this.passedBy[other] > bound) {
        throw new Error(`c${other} starved: passed ${this.passedBy[other]} times (bound ${bound})`);
      }
    });
  }

  private checkWorkConserving(): void {
    if (this.inFlight.size >= this.spec.slots) {
      return;
    }
    for (const caller of new Set(this.waiting.values())) {
      if (this.mayRun(caller)) {
        throw new Error(`a slot is free while c${caller} waits and may run`);
      }
    }
  }

  private answer(id: RequestId): void {
    if (this.answered.has(id)) {
      throw new Error(`request ${id} answered twice`);
    }
    this.answered.add(id);
  }
}
