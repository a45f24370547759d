/**
 * The scheduler's books: every node's record, the waiting queue, the requests in flight and where,
 * the affinity memory, and the entries each action and event makes in them. No decisions here
 * (scheduler.ts makes them); each method keeps the books consistent with one thing that happened.
 *
 * The in-flight count is kept per request, from dispatch to `end`, so an end frees the node it ran
 * on and a node's count is exact (docs/design.md D25 `inFlight`). It is the gateway's only count: a
 * stop refusal (docs/design.md D28), `/v1/fleet` and `/metrics` all read it here.
 */
import { groupOfIn, type GroupView, groupViews } from './nodes/groups.ts';
import { IdleDue } from './nodes/idle-due.ts';
import { takeReading } from './nodes/idle-stop.ts';
import { applyView, type NodeRecord, nodeRecord, stoppedView } from './nodes/nodes.ts';
import type { PlanContext } from './nodes/wakes.ts';
import { AffinityMemory } from './requests/affinity.ts';
import { cacheHolder, forgetLostCache } from './requests/kept-affinity.ts';
import { PlaceIndex } from './requests/place-index.ts';
import { type Waiting, WaitQueue } from './requests/queue.ts';
import { RunningRequests } from './requests/running-requests.ts';
import { ServingIndex } from './requests/serving-index.ts';
import { peakSent } from './requests/slots.ts';
import { queueLimitsFor } from './settings.ts';
import type {
  Action,
  ActivityReading,
  NodeView,
  QueueLimits,
  RejectDetail,
  RejectReason,
  RequestId,
  SchedulerSettings,
  StartId,
} from './types.ts';

const NONE_SERVED: readonly string[] = [];

export class Ledger {
  readonly records: readonly NodeRecord[];
  readonly byName: ReadonlyMap<string, NodeRecord>;
  readonly groups: ReadonlyMap<string, GroupView>;
  readonly queue = new WaitQueue();
  /** docs/design.md D29 `concurrency`: it counts each caller's too. */
  readonly running = new RunningRequests();
  readonly affinity = new AffinityMemory();
  /** Per waiting model: since when a ready node has served it (deadlines.ts). */
  readonly readySince = new Map<string, number>();
  /** Models a waking fallback answered whose wake could not start yet (owed-wakes.ts). */
  readonly owedWakes = new Set<string>();
  /** Operators' starts waiting for room in their group, in the order they came (starts.ts). */
  readonly starts = new Map<StartId, { readonly node: string; readonly force: boolean }>();
  /** Nodes under idle stop: the only ones a timer is ever armed for (due.ts). */
  readonly idleWatched: readonly NodeRecord[];
  /** The earliest idle stop among them, renewed for each node this ledger changes (due.ts). */
  readonly idleDue: IdleDue;
  /** Where each model's next request goes, renewed likewise (place-index.ts). */
  readonly placing: PlaceIndex;
  /** The nodes whose view serves each model: placement reads no others. */
  private readonly byModel = new ServingIndex();

  constructor(readonly settings: SchedulerSettings) {
    this.records = settings.nodes.map((node, order) => nodeRecord(node, order));
    this.byName = new Map(this.records.map((record) => [record.settings.name, record]));
    this.idleWatched = this.records.filter((record) => record.settings.idleStopMs !== undefined);
    this.idleDue = new IdleDue(this.idleWatched);
    this.placing = new PlaceIndex(settings.prefer, this.byName, (model) => this.serving(model));
    this.groups = groupViews(settings.groups, this.records);
  }

  limits(model: string): QueueLimits {
    return queueLimitsFor(this.settings, model);
  }

  groupOf(record: NodeRecord): GroupView | undefined {
    return groupOfIn(this.groups, record);
  }

  /** `waiting`: the request a wake would be for; the node holding its kept cache goes first. */
  context(now: number, waiting?: { readonly affinity?: string }): PlanContext {
    const holder = waiting && cacheHolder(this.affinityNode(waiting), this.byName);
    return {
      records: this.records,
      groups: this.groups,
      queuedFor: (record) => this.queuedFor(record),
      now,
      ...(holder === undefined ? {} : { cacheHolder: holder }),
    };
  }

  /** Requests waiting here that the node serves. */
  queuedFor(record: NodeRecord): number {
    let count = 0;
    for (const model of record.view?.state === 'running' ? record.view.serves : []) {
      count += this.queue.length(model);
    }
    return count;
  }

  /** Slots freeing per second over the nodes serving the model (slots.ts). */
  rateFor(model: string, now: number): number {
    let rate = 0;
    for (const record of this.serving(model)) {
      rate += record.frees.rate(now);
    }
    return rate;
  }

  /** Where the request's leading prompt last went, when affinity is on (docs/design.md D25). */
  affinityNode(entry: { readonly affinity?: string }): string | undefined {
    return this.settings.affinity && entry.affinity !== undefined
      ? this.affinity.nodeFor(entry.affinity)
      : undefined;
  }

  /** Where the request goes now (placement.ts), or undefined when every node is full. */
  place(entry: { readonly model: string; readonly affinity?: string }): NodeRecord | undefined {
    return this.placing.place(entry.model, this.affinityNode(entry));
  }

  /** A node changed: what is kept of it for placement and idle stops is renewed. */
  changed(record: NodeRecord): void {
    this.idleDue.mark(record);
    this.placing.mark(record);
  }

  /** After a rare event, every node is read afresh for placement and idle stops. */
  rereadAll(): void {
    this.idleDue.markAll();
    this.placing.markAll();
  }

  /** The nodes whose view serves `model` (running or not): the candidates for placing it. */
  serving(model: string): Iterable<NodeRecord> {
    return this.byModel.of(model);
  }

  views(views: readonly NodeView[]): void {
    for (const view of views) {
      const record = this.byName.get(view.name);
      if (record !== undefined) {
        this.apply(record, view);
      }
    }
  }

  /** applyView, keeping the index by model in step with what the node serves. */
  private apply(record: NodeRecord, view: NodeView, ours = false): void {
    this.changed(record);
    const before = record.view;
    if (applyView(record, view, ours)) {
      this.byModel.moved(record, before?.serves ?? NONE_SERVED, view.serves);
      forgetLostCache(this.affinity, before, view);
    }
  }

  dispatch(entry: Waiting, node: NodeRecord, now: number): Action {
    this.changed(node);
    node.inFlight += 1;
    peakSent(node.peak, node.inFlight);
    node.ownActivityAt = now;
    this.running.set(entry.id, { node, model: entry.model, since: now, caller: entry.caller });
    if (this.settings.affinity && entry.affinity !== undefined) {
      this.affinity.remember(entry.affinity, node.settings.name);
    }
    const { id, model } = entry;
    const waitedMs = now - entry.enqueuedAt;
    return { kind: 'dispatch', id, model, node: node.settings.name, waitedMs };
  }

  /** A refusal; the entry is taken out of the queue if it waited there. */
  reject(
    entry: Waiting,
    reason: RejectReason,
    now: number,
    retryAfterSeconds?: number,
    detail?: RejectDetail,
  ): Action {
    this.queue.remove(entry.id);
    return {
      kind: 'reject',
      id: entry.id,
      model: entry.model,
      reason,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      waitedMs: now - entry.enqueuedAt,
      ...(detail === undefined ? {} : { detail }),
    };
  }

  /** A request is over: a waiting one leaves the queue at once, a running one frees its slot. */
  end(id: RequestId, now: number): void {
    if (this.queue.remove(id) !== undefined) {
      return;
    }
    const node = this.running.get(id)?.node;
    if (node === undefined) {
      return;
    }
    this.running.delete(id);
    this.changed(node);
    node.inFlight -= 1;
    node.ownActivityAt = now;
    node.frees.add(now);
  }

  wake(
    record: NodeRecord,
    model: string,
    cause: 'demand' | 'scale-out' | 'keep-warm',
    now: number,
  ): Action {
    this.changed(record);
    record.waking = { model, since: now };
    return { kind: 'wake', node: record.settings.name, model, cause };
  }

  /** An operator's start, booked as a wake: it holds its group's share from now (starts.ts). */
  start(record: NodeRecord, id: StartId, now: number): Action {
    this.changed(record);
    const name = record.settings.name;
    record.waking = { model: record.view?.wakes?.[0] ?? '', since: now };
    return { kind: 'start', id, node: name };
  }

  wakeEnded(node: string, outcome: { view: NodeView } | { detail: string }, now: number): void {
    const record = this.byName.get(node);
    if (record?.waking === undefined) {
      return;
    }
    const { model } = record.waking;
    this.changed(record);
    record.waking = undefined;
    if ('view' in outcome) {
      record.wakeFailure = undefined;
      this.apply(record, outcome.view, true);
    } else {
      record.wakeFailure = { at: now, model, detail: outcome.detail };
      // A wake that timed out leaves its engine loading (spec §4.2 rule 5): it may hold the GPU.
      record.unsureSince = now;
    }
  }

  /** A fresh read of the node's activity, asked now (idle-stop.ts). */
  read(record: NodeRecord, now: number): Action {
    record.reading = now;
    record.readTriedAt = now;
    this.changed(record);
    return { kind: 'read', node: record.settings.name };
  }

  /** A read ended: its reading, or none when the node could not be read (idle-stop.ts). */
  activity(node: string, reading: ActivityReading | undefined): void {
    const record = this.byName.get(node);
    if (record !== undefined) {
      takeReading(record, reading);
      this.changed(record);
    }
  }

  stop(
    record: NodeRecord,
    reason: 'idle' | 'swap',
    now: number,
    group?: string,
    forced = false,
  ): Action {
    this.changed(record);
    record.stopping = { reason, since: now };
    const name = record.settings.name;
    if (forced) {
      this.affinity.forgetNode(name); // docs/design.md D32: a forced stop saves nothing
    }
    return {
      kind: 'stop',
      node: name,
      reason,
      ...(group === undefined ? {} : { group }),
      ...(forced ? { forced: true as const } : {}),
    };
  }

  stopEnded(node: string, ok: boolean, now: number): void {
    const record = this.byName.get(node);
    if (record?.stopping === undefined) {
      return;
    }
    this.changed(record);
    record.stopping = undefined;
    if (ok) {
      this.apply(record, stoppedView(record.view, node, now), true);
    } else {
      // Still up, as far as we know. Its idle clock restarts, so a failing stop is not retried
      // at every event, and no swap picks it again before a fresh view.
      record.unsureSince = now;
      record.ownActivityAt = now;
    }
  }
}
