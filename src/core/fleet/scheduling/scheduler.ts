/**
 * The gateway's scheduler (docs/design.md D25, D26; spec §4.2 rules 3 and 5): which node each
 * request goes to, which wait, which are refused, which nodes to wake and which to stop.
 * Deterministic and free of I/O: the gateway feeds it events with the time, applies the actions it
 * answers, and reports how each wake and stop ended as another event. The same events at the same
 * times give the same actions, which the tests (an injected clock, random interleavings) rely on.
 *
 * Wiring, at the edge, one loop: feed(event) applies every action of step(event, now()), then
 * arms one timer for nextDueAt(now()) that feeds `tick`. A request `arrive`s and is answered, now
 * or later, by one `dispatch` or one `reject`; `waiting(id, now)` gives its position meanwhile;
 * its end (reply over, failed, caller gone) is `end`, a retry on another node `move`. Node
 * refreshes are `views`; a `wake` or `stop` applied is fed back as `wake-ended` or `stop-ended`,
 * and a `read` of a node's metrics (its activity record, spec §3) as `activity`, after the step.
 *
 * One concern per file: arrival.ts (what an arrival gets; route-decision.ts, the same read-only,
 * D33), slots.ts, placement.ts (place-index.ts), queue.ts, deadlines.ts, moves.ts (a retry),
 * wakes.ts (wake, scale-out, swap, give up), groups.ts, starts.ts, idle-stop.ts, keep-warm.ts,
 * node-upkeep.ts, nodes.ts, ledger.ts (the books), due.ts (idle-due.ts), lazy-heap.ts,
 * affinity.ts, affinity-key.ts, kept-affinity.ts (across a stop), settings.ts (defaults).
 */
import { nextDueAt } from './due.ts';
import { Ledger } from './ledger.ts';
import { idleStopAt } from './nodes/idle-stop.ts';
import { upkeep } from './nodes/node-upkeep.ts';
import { isUp, readyFor } from './nodes/nodes.ts';
import { modelsToPlan, settleOwed, unqueuedSince } from './nodes/owed-wakes.ts';
import { settleStarts } from './nodes/starts.ts';
import { planFor, scaleOutFor } from './nodes/wakes.ts';
import { arrivalOf, placeNow, withFallback } from './requests/arrival.ts';
import { deadlineOf, expiryOf } from './requests/deadlines.ts';
import { inFlightOf, type NodeInFlight } from './requests/in-flight-of.ts';
import { moveRunning } from './requests/moves.ts';
import type { Waiting } from './requests/queue.ts';
import { type RouteDecision, routeDecision } from './route-decision.ts';
import type { Action, RequestId, RequestInfo, SchedulerEvent, SchedulerSettings } from './types.ts';

export class Scheduler {
  private readonly books: Ledger;

  constructor(readonly settings: SchedulerSettings) {
    this.books = new Ledger(settings);
  }

  step(event: SchedulerEvent, now: number): Action[] {
    const actions: Action[] = [];
    const books = this.books;
    let refused: string | undefined;
    switch (event.kind) {
      case 'arrive':
        refused = this.arrive(event.request, now, actions);
        break;
      case 'end':
        books.end(event.id, now);
        break;
      case 'move':
        moveRunning(books, event.id, event.node, now);
        break;
      case 'start':
        books.starts.set(event.id, { node: event.node, force: event.force });
        break;
      case 'views':
        books.views(event.views);
        break;
      case 'wake-ended':
        // Rare events: every node is read afresh for placement and idle stops after them.
        books.rereadAll();
        books.wakeEnded(event.node, event.ok ? { view: event.view } : event, now);
        break;
      case 'stop-ended':
        books.rereadAll();
        books.stopEnded(event.node, event.ok, now);
        break;
      case 'activity':
        books.activity(event.node, event.reading);
        break;
      case 'tick':
        books.rereadAll();
        break;
    }
    // After an arrival every head still cannot be placed: only capacity coming back changes that.
    if (event.kind !== 'arrive') {
      this.drain(now, actions);
    }
    this.expire(now, actions);
    // An operator's start takes the room a stop makes before a request's wake does (starts.ts).
    settleStarts(books, now, actions);
    this.plan(now, actions, refused);
    // Idleness and keep-warm change with time and views, never with a request's arrival or end.
    if (event.kind !== 'arrive' && event.kind !== 'end') {
      upkeep(books, now, actions);
    }
    return actions;
  }

  /** When a `tick` is next due (a deadline, an idle stop, a residency ending), if ever. */
  nextDueAt(now: number): number | undefined {
    return nextDueAt(this.books, now);
  }

  /** Where a waiting request stands (for its progress comments), or undefined once it does not. */
  waiting(
    id: RequestId,
    now: number,
  ): { readonly model: string; readonly position: number; readonly waitedMs: number } | undefined {
    const entry = this.books.queue.get(id);
    const position = this.books.queue.position(id);
    return entry === undefined || position === undefined
      ? undefined
      : { model: entry.model, position, waitedMs: now - entry.enqueuedAt };
  }

  /** Whether the request waits here (cheap, unlike its position: asked after an arrival). */
  isWaiting(id: RequestId): boolean {
    return this.books.queue.has(id);
  }

  /** How many requests wait, over every model or for `model` (cheap: read after every event). */
  waitingCount(model?: string): number {
    return model === undefined ? this.books.queue.size : this.books.queue.length(model);
  }

  /** docs/design.md D25 `queued`: how many wait for each model. */
  queued(): ReadonlyMap<string, number> {
    return this.books.queue.counts();
  }

  /** docs/design.md D25 `inFlight`: this gateway's requests on the node. */
  inFlight(node: string): number {
    return this.books.byName.get(node)?.inFlight ?? 0;
  }

  /** What the node's requests in flight are (docs/design.md D28 `node_busy` names them), if any. */
  inFlightOf(node: string, now: number): NodeInFlight | undefined {
    return inFlightOf(this.books, node, now);
  }

  /** docs/design.md D33: what a request for `model` would get now, each node's part and why. */
  route(model: string, now: number): RouteDecision {
    return routeDecision(this.books, model, now);
  }

  /** Whether a request for `model` would be sent to a node at once (cheap: the fast path's test). */
  placeable(model: string): boolean {
    return placeNow(this.books, this.settings.prefer, { model }) !== undefined;
  }

  /** Requests waiting here that the node would serve (docs/design.md D28 `node_busy`). */
  queuedFor(node: string): number {
    const record = this.books.byName.get(node);
    return record === undefined ? 0 : this.books.queuedFor(record);
  }

  /**
   * Nodes loading a model that requests here wait for (docs/design.md D13): the gateway refreshes
   * them at its wake poll rate, so the wait ends when the engine answers, not at the next refresh.
   */
  awaited(): string[] {
    const books = this.books;
    return books.records
      .filter((record) => isUp(record) && !record.view?.ready && books.queuedFor(record) > 0)
      .map((record) => record.settings.name);
  }

  /** docs/design.md D26 `idleStopAt`, in ms, for a running node under idle stop. */
  idleStopAt(node: string): number | undefined {
    const record = this.books.byName.get(node);
    return record === undefined ? undefined : idleStopAt(record);
  }

  /** Returns the model of a request refused for a full queue: its demand may still wake a node. */
  private arrive(request: RequestInfo, now: number, actions: Action[]): string | undefined {
    const books = this.books;
    if (books.queue.has(request.id) || books.running.has(request.id)) {
      return undefined;
    }
    const entry: Waiting = { ...request, enqueuedAt: now };
    if (request.forget === 'unlessPlaced') {
      // The fast path (docs/design.md D33): placed now, or nothing; the gateway freshens its views
      // first.
      const node = placeNow(books, this.settings.prefer, request);
      if (node !== undefined) {
        actions.push(books.dispatch(entry, node, now));
      }
      return undefined;
    }
    const arrival = arrivalOf(books, this.settings.prefer, request, now);
    switch (arrival.kind) {
      case 'dispatch':
        actions.push(withFallback(books.dispatch(entry, arrival.node, now), arrival));
        return arrival.fallback === undefined ? undefined : request.model;
      case 'refuse':
        if (arrival.reason === 'no_node') {
          if (request.forget !== 'noNodeRefusal') {
            actions.push(books.reject(entry, 'no_node', now));
          }
          return undefined;
        }
        if (arrival.reason === 'wake_not_allowed') {
          const detail = { wakeRefused: arrival.node };
          actions.push(books.reject(entry, 'wake_not_allowed', now, undefined, detail));
          return undefined;
        }
        actions.push(books.reject(entry, 'queue_full', now, arrival.retryAfterSeconds));
        return request.model;
      case 'queue':
        books.queue.add(entry);
        return undefined;
    }
  }

  /** Offers free slots to the waiting: the longest-waiting model first, each model in order. */
  private drain(now: number, actions: Action[]): void {
    const books = this.books;
    if (books.queue.size === 0) {
      return;
    }
    for (let placed = true; placed;) {
      placed = false;
      for (const model of books.queue.models()) {
        // docs/design.md D29: fair shares across callers, a caller at its limit passed over.
        const next = books.queue.next(model, books.running.mayRun);
        const node = next === undefined ? undefined : books.place(next);
        if (next !== undefined && node !== undefined) {
          books.queue.take(next);
          actions.push(books.dispatch(next, node, now));
          placed = true;
          break;
        }
      }
    }
  }

  /** Refuses those whose wait ran out (deadlines.ts). */
  private expire(now: number, actions: Action[]): void {
    const books = this.books;
    if (books.queue.size === 0) {
      // Map.clear allocates a fresh table: only when there is something to clear.
      if (books.readySince.size > 0) {
        books.readySince.clear();
      }
      return;
    }
    for (const model of books.readySince.keys()) {
      if (books.queue.length(model) === 0) {
        books.readySince.delete(model);
      }
    }
    for (const model of books.queue.models()) {
      if (!books.records.some((record) => readyFor(record, model))) {
        books.readySince.delete(model);
      } else if (!books.readySince.has(model)) {
        books.readySince.set(model, now);
      }
      const readySince = books.readySince.get(model);
      const limits = books.limits(model);
      const { wakeTimeoutMs } = this.settings;
      // Deadlines grow with arrival: while the oldest is in time none ran out, and nothing is built.
      const head = books.queue.head(model);
      if (head === undefined || now < deadlineOf(head, readySince, limits, wakeTimeoutMs)) {
        continue;
      }
      const inputs = { readySince, limits, wakeTimeoutMs, rate: books.rateFor(model, now), now };
      const expired = expiryOf(books.context(now), model, books.queue.entries(model), inputs);
      for (const { entry, reason, retryAfterSeconds, detail } of expired) {
        actions.push(books.reject(entry, reason, now, retryAfterSeconds, detail));
      }
    }
  }

  /** Wakes, scale-out, swaps and give-ups for the models with requests waiting (wakes.ts). */
  private plan(now: number, actions: Action[], refused: string | undefined): void {
    const books = this.books;
    const mayRun = books.running.mayRun;
    for (const model of modelsToPlan(books, refused)) {
      const head = books.queue.head(model);
      const since = head?.enqueuedAt ?? unqueuedSince(books, model, now);
      const context = books.context(now, head);
      const plan = planFor(context, model, since);
      settleOwed(books, model, plan, refused);
      if (plan.kind === 'wake') {
        actions.push(books.wake(plan.node, model, 'demand', now));
      } else if (plan.kind === 'swap') {
        actions.push(...plan.victims.map((victim) => books.stop(victim, 'swap', now, plan.group)));
      } else if (plan.kind === 'serving' && books.queue.next(model, mayRun) !== undefined) {
        // docs/design.md D29: more nodes do not help a caller at its `concurrency`.
        const extra = scaleOutFor(context, model, since);
        if (extra !== undefined) {
          actions.push(books.wake(extra, model, 'scale-out', now));
        }
      } else if (plan.kind === 'failed' || plan.kind === 'none') {
        const detail = plan.kind === 'failed' ? { failures: plan.failures } : undefined;
        const reason = plan.kind === 'failed' ? 'wake_failed' : 'no_node';
        for (const entry of [...books.queue.entries(model)]) {
          actions.push(books.reject(entry, reason, now, undefined, detail));
        }
      }
    }
  }
}
