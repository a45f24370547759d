/**
 * The one loop at the edge that runs the scheduler (docs/design.md D25, D26; scheduler.ts says what
 * it decides): every event goes through `feed`, which steps the pure scheduler with the time and
 * applies the actions it answers: a dispatch or a refusal settles the request that waited for it,
 * a wake or a stop is started and its end fed back as another event. One timer is armed for the
 * scheduler's next deadline, and nodes that requests wait on while they load are asked often.
 *
 * Events are applied in the order they happen: one that an action causes while the loop is busy
 * (a stop that ends at once) is queued and fed after, never inside a step. The clock and the
 * timers are injected, so the loop has fast unit tests beside the gateway's end-to-end ones.
 */
import type { Scheduler } from '../../core/fleet/scheduling/scheduler.ts';
import type {
  Action,
  NodeView,
  RequestId,
  RequestInfo,
  SchedulerEvent,
  StartId,
} from '../../core/fleet/scheduling/types.ts';
import {
  type Admission,
  type DispatchAction,
  HungUp,
  type LoopTimers,
  Refused,
  type RejectAction,
  type ScheduleEffects,
  type Settle,
  type StartAction,
  StartRefused,
} from './loop-contract.ts';

/** How often a node that requests wait on while it loads is asked (docs/design.md D13). */
export const AWAITED_POLL_MS = 250;

export class ScheduleLoop {
  private nextId = 1;
  private nextStart: StartId = 1;
  private readonly pending = new Map<RequestId, Settle<DispatchAction>>();
  private readonly starts = new Map<StartId, Settle<StartAction>>();
  private readonly events: SchedulerEvent[] = [];
  private feeding = false;
  /** The answer to the arrival being fed, when it came in the same step. */
  private answered: Action | undefined;
  private armedAt: number | undefined;
  private cancelTimer: (() => void) | undefined;
  private cancelPoll: (() => void) | undefined;
  private closed = false;

  constructor(
    readonly scheduler: Scheduler,
    private readonly effects: ScheduleEffects,
    private readonly timers: LoopTimers,
  ) {}

  /**
   * docs/design.md D33 fast paths, one step, forgetting what `forget` says (RequestInfo): undefined
   * for a request forgotten, which the caller admits once its views are fresh (freshen.ts).
   */
  admitNow(
    request: Omit<RequestInfo, 'id'>,
    forget?: RequestInfo['forget'],
  ): Admission | undefined {
    // docs/design.md D25: first in, first out per model. Behind others waiting for it no step
    // could place it now, so none is run for nothing (at full slots every arrival is here).
    if (forget === 'unlessPlaced' && this.scheduler.waitingCount(request.model) > 0) {
      return undefined;
    }
    const id = this.nextId;
    this.nextId += 1;
    const answer = this.arrive(
      forget === undefined ? { ...request, id } : { ...request, id, forget },
    );
    if (answer?.kind === 'dispatch') {
      return { id, placed: answer };
    }
    if (answer?.kind === 'reject') {
      throw new Refused(answer);
    }
    if (forget === 'unlessPlaced' || !this.scheduler.isWaiting(id)) {
      return undefined;
    }
    const waiting = new Promise<DispatchAction>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
    });
    return { id, waiting };
  }

  /** A request arrived: placed now, refused now (thrown), or waiting for a slot or a wake. */
  admit(request: Omit<RequestInfo, 'id'>): Admission {
    return this.admitNow(request) as Admission;
  }

  private arrive(request: RequestInfo): Action | undefined {
    this.answered = undefined;
    this.feed({ kind: 'arrive', request });
    const answer = this.answered as Action | undefined;
    this.answered = undefined;
    return answer;
  }

  /** The request's reply ended or failed, or its caller hung up, waiting or not. */
  end(id: RequestId): void {
    const waiter = this.pending.get(id);
    if (waiter !== undefined) {
      this.pending.delete(id);
      waiter.reject(new HungUp());
    }
    this.feed({ kind: 'end', id });
  }

  /** docs/design.md D30 `failed`: the request in flight now runs on `node`, its slot with it. */
  moved(id: RequestId, node: string): void {
    this.feed({ kind: 'move', id, node });
  }

  /**
   * An operator's start (docs/design.md D33): resolves with the go-ahead once the node's group has
   * room (a swap may stop a member first), or rejects with StartRefused. The caller then starts the
   * node and reports how that went with `started`.
   */
  start(node: string, force: boolean): Promise<StartAction> {
    const id = this.nextStart;
    this.nextStart += 1;
    const answer = new Promise<StartAction>((resolve, reject) => {
      this.starts.set(id, { resolve, reject });
    });
    this.feed({ kind: 'start', id, node, force });
    return answer;
  }

  /** The start the loop allowed has ended: the view that followed it, or why it failed. */
  started(action: StartAction, outcome: { view: NodeView } | { detail: string }): void {
    if (action.already === true) {
      return;
    }
    const { node } = action;
    this.feed(
      'view' in outcome
        ? { kind: 'wake-ended', node, ok: true, view: outcome.view }
        : { kind: 'wake-ended', node, ok: false, detail: outcome.detail },
    );
  }

  views(views: readonly NodeView[]): void {
    this.feed({ kind: 'views', views });
  }

  /**
   * Stops the timers, and ends every request still waiting with `reason` (the gateway is shutting
   * down): its caller is told why, a stream in an SSE error event, rather than cut off in silence.
   */
  close(reason?: Error): void {
    if (reason !== undefined) {
      for (const [id, waiter] of [...this.pending]) {
        this.pending.delete(id);
        waiter.reject(reason);
        this.feed({ kind: 'end', id });
      }
    }
    this.closed = true;
    this.cancelTimer?.();
    this.cancelPoll?.();
  }

  private feed(event: SchedulerEvent): void {
    this.events.push(event);
    if (this.feeding) {
      return;
    }
    this.feeding = true;
    try {
      for (let next = this.events.shift(); next !== undefined; next = this.events.shift()) {
        for (const action of this.scheduler.step(next, this.timers.now())) {
          this.apply(action);
        }
      }
    } finally {
      this.feeding = false;
    }
    this.arm();
    if (this.scheduler.waitingCount() > 0) {
      this.poll();
    }
  }

  private apply(action: Action): void {
    this.effects.applied?.(action);
    switch (action.kind) {
      case 'dispatch':
      case 'reject':
        this.settle(action);
        break;
      case 'wake':
        this.effects.wake(action).then(
          (view) => this.feed({ kind: 'wake-ended', node: action.node, ok: true, view }),
          (error: unknown) =>
            this.feed({
              kind: 'wake-ended',
              node: action.node,
              ok: false,
              detail: (error as Error).message,
            }),
        );
        break;
      case 'read':
        (this.effects.read?.(action) ?? Promise.resolve(undefined)).then(
          (reading) =>
            this.feed({
              kind: 'activity',
              node: action.node,
              ...(reading === undefined ? {} : { reading }),
            }),
          () => this.feed({ kind: 'activity', node: action.node }),
        );
        break;
      case 'start':
      case 'start-refused': {
        const waiter = this.starts.get(action.id);
        this.starts.delete(action.id);
        if (action.kind === 'start') {
          waiter?.resolve(action);
        } else {
          waiter?.reject(new StartRefused(action));
        }
        break;
      }
      case 'stop':
        this.effects.stop(action).then(
          (ok) => this.feed({ kind: 'stop-ended', node: action.node, ok }),
          () => this.feed({ kind: 'stop-ended', node: action.node, ok: false }),
        );
        break;
    }
  }

  private settle(action: DispatchAction | RejectAction): void {
    const waiter = this.pending.get(action.id);
    if (waiter === undefined) {
      // The arrival being fed now: admit() reads it when the step returns.
      this.answered = action;
      return;
    }
    this.pending.delete(action.id);
    if (action.kind === 'dispatch') {
      waiter.resolve(action);
    } else {
      waiter.reject(new Refused(action));
    }
  }

  /**
   * One timer, for the scheduler's next deadline (a wait running out, an idle stop). One due earlier
   * is kept (its tick arms the right one): under a queue the head's deadline moves later with every
   * dispatch, and a timer made and cancelled per request is spared.
   */
  private arm(): void {
    const now = this.timers.now();
    const due = this.closed ? undefined : this.scheduler.nextDueAt(now);
    if (
      due === this.armedAt ||
      (due !== undefined && this.armedAt !== undefined && this.armedAt <= due)
    ) {
      return;
    }
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.armedAt = due;
    if (due !== undefined) {
      this.cancelTimer = this.timers.after(Math.max(0, due - now), () => {
        this.cancelTimer = undefined;
        this.armedAt = undefined;
        this.feed({ kind: 'tick' });
      });
    }
  }

  /** While requests wait on nodes that are loading, those nodes are asked at a short period. */
  private poll(): void {
    if (this.cancelPoll !== undefined || this.closed) {
      return;
    }
    this.cancelPoll = this.timers.after(AWAITED_POLL_MS, () => {
      this.cancelPoll = undefined;
      const awaited = this.scheduler.awaited();
      for (const node of awaited) {
        this.effects.refresh(node);
      }
      if (this.scheduler.waitingCount() > 0) {
        this.poll();
      }
    });
  }
}
