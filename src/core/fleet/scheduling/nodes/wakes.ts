/**
 * What to do for a model that has requests waiting (spec §4.2 rule 5, docs/design.md D13, D25
 * scale-out, D26 groups), pure: nothing (a ready node serves it and they wait for a slot; or one is
 * coming), wake a node, stop a group member to make room for one, or give up.
 *
 * A wake and a queue are one wait: the requests stay in the model's queue while a node comes up
 * and go to whichever slot frees first, on any node. One wake at a time per model for demand; a
 * node already waking is never woken again. Candidates go warm first, then in file order (spec
 * §4.2 rule 5). A candidate whose wake failed during this wait is not tried again in it.
 *
 * Scale-out (docs/design.md D25, opt-in per node): when every ready node for the model is full and
 * requests wait, one more candidate that allows it is started, unless one is already coming. It
 * never evicts a group member: a swap is for a model nothing serves, not for more of one served.
 *
 * Exclusive groups (exclusive.ts, docs/design.md D31): a candidate whose start would put it beside
 * a clashing group's member is woken only once those have stopped; a candidate that needs no stop
 * goes first, then one whose clashing members may all stop now (each stopped at once), then a
 * swap in a full group. Scale-out never stops a clashing member either.
 */
import { wakeOrder } from '../../routing/wake-choice.ts';
import type { HoldReason } from '../types.ts';
import { type Clearance, clearance, firstHeld, isClear } from './exclusive.ts';
import {
  groupOfIn,
  type GroupView,
  hasSpace,
  holder,
  holders,
  makingRoom,
  victim,
} from './groups.ts';
import { comingFor, type NodeRecord, readyFor, wakeableFor } from './nodes.ts';

export type Plan =
  | { readonly kind: 'serving' }
  | { readonly kind: 'coming'; readonly node: string }
  | { readonly kind: 'wake'; readonly node: NodeRecord }
  /**
   * `node`: the candidate the next plan wakes once `victims` stop: one member of its full `group`,
   * or (`exclusive`) the clashing members of other groups (exclusive.ts).
   */
  | {
      readonly kind: 'swap';
      readonly victims: readonly NodeRecord[];
      readonly group: string;
      readonly node: NodeRecord;
      readonly exclusive?: true;
    }
  | {
      readonly kind: 'blocked';
      readonly group: string;
      readonly hold: ({ readonly holder: string } & HoldReason) | undefined;
    }
  | { readonly kind: 'failed'; readonly failures: readonly { node: string; detail: string }[] }
  | { readonly kind: 'none' };

export interface PlanContext {
  /** Every node, in file order. */
  readonly records: readonly NodeRecord[];
  /** Every declared group, in file order. */
  readonly groups: ReadonlyMap<string, GroupView>;
  /** Requests waiting here that the node would serve. */
  readonly queuedFor: (record: NodeRecord) => number;
  readonly now: number;
  /** The node holding the waiting conversation's kept cache (kept-affinity.ts): woken first. */
  readonly cacheHolder?: string;
}

/** Wake candidates for `model`: stopped, describing it, not failed since `since`; wake order. */
export function candidates(context: PlanContext, model: string, since: number): NodeRecord[] {
  const found = context.records
    .filter(
      (record) =>
        wakeableFor(record, model) &&
        (record.wakeFailure === undefined || record.wakeFailure.at < since),
    )
    .map((record) => ({ record, warm: record.view?.warm === true }));
  const order = wakeOrder(found).map((entry) => entry.record);
  const held = order.findIndex((record) => record.settings.name === context.cacheHolder);
  return held > 0 ? [order[held] as NodeRecord, ...order.filter((_, at) => at !== held)] : order;
}

/**
 * A wake of it for `model` failed before this wait began, and no view since says whether its
 * engine is still loading (a timed-out wake leaves it so): wait for the next view rather than
 * refuse, or start it again beside itself.
 */
function maybeComing(record: NodeRecord, model: string, since: number): boolean {
  const failure = record.wakeFailure;
  return (
    record.unsureSince !== undefined &&
    failure !== undefined &&
    failure.model === model &&
    failure.at < since
  );
}

/** `since`: when the oldest request waiting for the model began to. */
export function planFor(context: PlanContext, model: string, since: number): Plan {
  const { records } = context;
  if (records.some((record) => readyFor(record, model))) {
    return { kind: 'serving' };
  }
  const coming = records.find(
    (record) => comingFor(record, model) || maybeComing(record, model, since),
  );
  if (coming !== undefined) {
    return { kind: 'coming', node: coming.settings.name };
  }
  const order = candidates(context, model, since);
  const full = new Map<GroupView, NodeRecord>();
  const clashing: {
    readonly node: NodeRecord;
    readonly group: GroupView;
    readonly clear: Clearance;
  }[] = [];
  for (const record of order) {
    const group = groupOfIn(context.groups, record);
    if (group === undefined || hasSpace(group)) {
      const clear = clearance(context.groups, group, context.queuedFor, context.now);
      if (isClear(clear)) {
        return { kind: 'wake', node: record };
      }
      if (group !== undefined) {
        clashing.push({ node: record, group, clear });
      }
    } else if (!full.has(group)) {
      full.set(group, record);
    }
  }
  const clearing = clashing.find((entry) => entry.clear.idle.length > 0);
  if (clearing !== undefined) {
    const { node, group, clear } = clearing;
    return { kind: 'swap', victims: clear.idle, group: group.name, node, exclusive: true };
  }
  for (const [group, first] of full) {
    if (makingRoom(group)) {
      const stopping = holders(group).find((member) => member.stopping !== undefined);
      return {
        kind: 'blocked',
        group: group.name,
        hold:
          stopping === undefined ? undefined : { holder: stopping.settings.name, why: 'stopping' },
      };
    }
    const chosen = victim(group, context.queuedFor, context.now);
    if (chosen !== undefined) {
      return { kind: 'swap', victims: [chosen], group: group.name, node: first };
    }
  }
  const [blocking] = full.keys();
  if (blocking !== undefined) {
    return {
      kind: 'blocked',
      group: blocking.name,
      hold: holder(blocking, context.queuedFor, context.now),
    };
  }
  const [waiting] = clashing;
  if (waiting !== undefined) {
    const held = firstHeld(waiting.clear);
    return held === undefined
      ? { kind: 'blocked', group: waiting.group.name, hold: undefined }
      : { kind: 'blocked', group: held.group, hold: held };
  }
  // A node being stopped that would serve the model again once woken, by us (a swap, an idle
  // stop) or, as its own status says, by someone else (another gateway): the request waits for
  // the stop to end and the wake after it, rather than being refused.
  const returning = records.find(
    (record) =>
      (record.stopping !== undefined || record.view?.state === 'stopping') &&
      ((record.view?.wakes ?? []).includes(model) || (record.view?.serves ?? []).includes(model)),
  );
  if (returning !== undefined) {
    return { kind: 'coming', node: returning.settings.name };
  }
  const failures: { node: string; detail: string }[] = [];
  for (const record of records) {
    const failure = record.wakeFailure;
    if (failure !== undefined && failure.at >= since && failure.model === model) {
      failures.push({ node: record.settings.name, detail: failure.detail });
    }
  }
  return failures.length > 0 ? { kind: 'failed', failures } : { kind: 'none' };
}

/** The node to start for load on `model`, when scale-out allows one now (see above). */
export function scaleOutFor(
  context: PlanContext,
  model: string,
  since: number,
): NodeRecord | undefined {
  if (context.records.some((record) => comingFor(record, model))) {
    return undefined;
  }
  return candidates(context, model, since).find((record) => {
    const group = groupOfIn(context.groups, record);
    return (
      record.settings.scaleOut &&
      (group === undefined ||
        (hasSpace(group) &&
          isClear(clearance(context.groups, group, context.queuedFor, context.now))))
    );
  });
}
