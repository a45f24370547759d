/**
 * What the scheduler knows of each node: its latest view, what we asked of it (a wake, a stop)
 * and our own traffic on it. Views can arrive late and out of order (a refresh asked before our
 * wake ended may land after it), so only a view taken after the one held replaces it, and a wake or
 * stop that failed leaves the node counted as up until a view taken after the failure says otherwise:
 * counting a member too many only delays a swap, counting one too few could overfill a group.
 */
import {
  FreeRecord,
  type Occupancy,
  othersAtView,
  type OursPeak,
  oursPeak,
} from '../requests/slots.ts';
import type { NodeSettings, NodeView } from '../types.ts';

export interface NodeRecord extends Occupancy {
  readonly settings: NodeSettings;
  /** Place in the fleet file: breaks ranking ties (spec §4.2 rule 3). */
  readonly order: number;
  view: NodeView | undefined;
  /** A wake we asked for and that has not ended: never a second one (spec §4.2 rule 5). */
  waking: { readonly model: string; readonly since: number } | undefined;
  /** A stop we asked for and that has not ended: nothing is sent to it meanwhile. */
  stopping: { readonly reason: 'idle' | 'swap'; readonly since: number } | undefined;
  /** A wake or stop failed at this time: up, as far as groups know, until a later view. */
  unsureSince: number | undefined;
  inFlight: number;
  external: number;
  /** Our count at its highest since the view's `busy` was scraped (slots.ts). */
  readonly peak: OursPeak;
  slots: number | undefined;
  /** When we last sent it a request or one of ours ended: activity the view may not show yet. */
  ownActivityAt: number | undefined;
  /** A fresh activity read we asked for that has not ended: when it was asked (idle-stop.ts). */
  reading: number | undefined;
  /** When the last fresh activity read was asked, whether it answered or not. */
  readTriedAt: number | undefined;
  /** The last fresh reading that answered: when it was asked, and its `lastActiveAt`. */
  freshAt: number | undefined;
  freshActiveAt: number | undefined;
  /** When we first saw it running, for a view that names no start time. */
  seenRunningSince: number | undefined;
  /** When slots freed here (slots.ts). */
  readonly frees: FreeRecord;
  /** Its last wake failure, so the same wait does not try it again. */
  wakeFailure: { readonly at: number; readonly model: string; readonly detail: string } | undefined;
  /** Keep-warm has been decided for it (once, at the first view that answers). */
  warmDecided: boolean;
}

export function nodeRecord(settings: NodeSettings, order: number): NodeRecord {
  return {
    settings,
    order,
    view: undefined,
    waking: undefined,
    stopping: undefined,
    unsureSince: undefined,
    inFlight: 0,
    external: 0,
    peak: oursPeak(),
    slots: undefined,
    ownActivityAt: undefined,
    reading: undefined,
    readTriedAt: undefined,
    freshAt: undefined,
    freshActiveAt: undefined,
    seenRunningSince: undefined,
    frees: new FreeRecord(),
    wakeFailure: undefined,
    warmDecided: false,
  };
}

/**
 * Takes a view only if it was taken after the one held: one delivered later with the same time is
 * the delayed one, and may show the node as it was before our own wake or stop ended. `ours`: the
 * view our own completed wake or stop stands for, which settles the node as of its time.
 */
export function applyView(record: NodeRecord, view: NodeView, ours = false): boolean {
  const held = record.view?.observedAt;
  if (held !== undefined && (ours ? view.observedAt < held : view.observedAt <= held)) {
    return false;
  }
  record.view = view;
  record.slots = view.state === 'running' ? view.slots : undefined;
  record.external = othersAtView(record.peak, view.busy, record.inFlight);
  if (record.unsureSince !== undefined && view.observedAt > record.unsureSince) {
    record.unsureSince = undefined;
  }
  if (view.state === 'running') {
    record.seenRunningSince ??= view.observedAt;
  } else {
    record.seenRunningSince = undefined;
  }
  return true;
}

/** The view our own completed stop stands for: stopped, still wakeable as it was. */
export function stoppedView(previous: NodeView | undefined, name: string, at: number): NodeView {
  return {
    name,
    observedAt: at,
    state: 'stopped',
    ready: false,
    serves: [],
    ...(previous?.wakes === undefined ? {} : { wakes: previous.wakes }),
    ...(previous?.warm === undefined ? {} : { warm: previous.warm }),
    ...(previous?.lastActiveAt === undefined ? {} : { lastActiveAt: previous.lastActiveAt }),
    ...(previous?.keepsCache === true ? { keepsCache: true } : {}),
  };
}

/** Running, and not on its way down at our asking. */
export function isUp(record: NodeRecord): boolean {
  return record.view?.state === 'running' && record.stopping === undefined;
}

/** Requests for `model` may be sent to it now (slots aside). */
export function readyFor(record: NodeRecord, model: string): boolean {
  return isUp(record) && record.view?.ready === true && record.view.serves.includes(model);
}

/**
 * It will serve `model` soon: we are waking it for it, or it is loading it (docs/design.md D13).
 */
export function comingFor(record: NodeRecord, model: string): boolean {
  if (record.waking !== undefined) {
    return record.waking.model === model || (record.view?.wakes ?? []).includes(model);
  }
  return isUp(record) && record.view?.ready === false && record.view.serves.includes(model);
}

/** Holds its share of a group: running, starting, stopping, or possibly so. */
export function occupies(record: NodeRecord): boolean {
  const state = record.view?.state;
  return (
    record.waking !== undefined ||
    record.stopping !== undefined ||
    record.unsureSince !== undefined ||
    state === 'running' ||
    state === 'starting' ||
    state === 'stopping'
  );
}

/** A wake of it would serve `model`, and nothing of it is up or under way. */
export function wakeableFor(record: NodeRecord, model: string): boolean {
  return (
    !occupies(record) &&
    record.view?.state === 'stopped' &&
    (record.view.wakes ?? []).includes(model)
  );
}

/** When its engine started, as far as we know. */
export function runningSince(record: NodeRecord): number | undefined {
  return record.view?.runningSince ?? record.seenRunningSince;
}

/** The newest sign of work on it: its own activity (as a view or a fresh read saw it), ours, or its start. */
export function lastActivity(record: NodeRecord): number | undefined {
  const marks = [
    record.view?.lastActiveAt,
    record.freshActiveAt,
    record.ownActivityAt,
    runningSince(record),
  ].filter((mark): mark is number => mark !== undefined);
  return marks.length === 0 ? undefined : Math.max(...marks);
}

/** Nothing of ours or anyone's in its engine, as far as the last refresh and our count say. */
export function isQuiet(record: NodeRecord): boolean {
  return record.inFlight === 0 && record.external === 0;
}
