/**
 * Nodes that share a GPU (docs/design.md D26 `groups`), pure: how many members hold the group,
 * whether one more may start, which member makes room, and who holds the group when none can.
 *
 * A member holds its share while running, starting or stopping (its engine still has the memory
 * until the stop ends), and while a failed wake or stop leaves that unclear (nodes.ts): a new
 * member starts only when fewer than `max` hold it, so the group is never over its size whatever
 * order requests, refreshes and ends come in. Room is made one stop at a time: while a member is
 * stopping, no other is evicted; the start waits for the stop to end.
 *
 * The member to stop is running and ready, has nothing in flight (ours or, at the last refresh,
 * anyone's: a stream in progress is never cut) and nothing waiting for it here, and has run
 * `minResidency`. Among those: one that is not keep-warm first (keep-warm exempts from idle stop,
 * and a swap still may stop it rather than refuse), then the least recently active, then file order.
 */
import type { GroupSettings, HoldReason } from '../types.ts';
import { isQuiet, lastActivity, type NodeRecord, occupies, runningSince } from './nodes.ts';

export interface GroupView {
  readonly name: string;
  readonly settings: GroupSettings;
  /** Its members, in file order. */
  readonly members: readonly NodeRecord[];
}

/** The group `record` is a member of, if any. */
export function groupOfIn(
  groups: ReadonlyMap<string, GroupView>,
  record: NodeRecord,
): GroupView | undefined {
  const name = record.settings.group;
  return name === undefined ? undefined : groups.get(name);
}

export function holders(group: GroupView): NodeRecord[] {
  return group.members.filter(occupies);
}

/** One more member may start now. */
export function hasSpace(group: GroupView): boolean {
  return holders(group).length < group.settings.max;
}

/** A member is stopping at our asking: room is already being made. */
export function makingRoom(group: GroupView): boolean {
  return group.members.some((member) => member.stopping !== undefined);
}

/** Why `member` cannot make room now, or undefined when it can. */
export function holdReason(
  member: NodeRecord,
  group: GroupSettings,
  queuedFor: (record: NodeRecord) => number,
  now: number,
): HoldReason | undefined {
  if (member.stopping !== undefined) {
    return { why: 'stopping' };
  }
  if (
    member.waking !== undefined ||
    member.unsureSince !== undefined ||
    member.view?.state !== 'running' ||
    !member.view.ready
  ) {
    return { why: 'starting' };
  }
  const queued = queuedFor(member);
  if (!isQuiet(member) || queued > 0) {
    return { why: 'busy', inFlight: member.inFlight + member.external, queued };
  }
  const since = runningSince(member) ?? now;
  const remainingMs = since + group.minResidencyMs - now;
  return remainingMs > 0 ? { why: 'residency', remainingMs } : undefined;
}

/** Holders in the order they would be stopped to make room (see above). */
function evictionOrder(group: GroupView): NodeRecord[] {
  return holders(group).sort((a, b) => {
    if (a.settings.keepWarm !== b.settings.keepWarm) {
      return a.settings.keepWarm ? 1 : -1;
    }
    const aAt = lastActivity(a) ?? Number.NEGATIVE_INFINITY;
    const bAt = lastActivity(b) ?? Number.NEGATIVE_INFINITY;
    return aAt !== bAt ? aAt - bAt : a.order - b.order;
  });
}

/** The member to stop so another may start, or undefined when none may go now. */
export function victim(
  group: GroupView,
  queuedFor: (record: NodeRecord) => number,
  now: number,
): NodeRecord | undefined {
  return evictionOrder(group).find(
    (member) => holdReason(member, group.settings, queuedFor, now) === undefined,
  );
}

/**
 * Who holds the group and why, for a refusal (docs/design.md D26 `group_busy`): the first in line
 * to go.
 */
export function holder(
  group: GroupView,
  queuedFor: (record: NodeRecord) => number,
  now: number,
): ({ readonly holder: string } & HoldReason) | undefined {
  const [first] = evictionOrder(group);
  if (first === undefined) {
    return undefined;
  }
  const reason = holdReason(first, group.settings, queuedFor, now) ?? {
    why: 'residency',
    remainingMs: 0,
  };
  return { holder: first.settings.name, ...reason };
}

/** When the earliest residency among the holders ends: a waiting swap may go ahead then. */
export function nextResidencyEnd(group: GroupView, now: number): number | undefined {
  let earliest: number | undefined;
  for (const member of holders(group)) {
    const since = runningSince(member);
    const end = since === undefined ? undefined : since + group.settings.minResidencyMs;
    if (end !== undefined && end > now && (earliest === undefined || end < earliest)) {
      earliest = end;
    }
  }
  return earliest;
}

/**
 * Each declared group with its members, in file order. The fleet file refuses an unknown group at
 * start-up (docs/design.md D26), so a member naming one here is a bug, thrown as such.
 */
export function groupViews(
  groups: ReadonlyMap<string, GroupSettings>,
  records: readonly NodeRecord[],
): ReadonlyMap<string, GroupView> {
  const views = new Map(
    [...groups].map(([name, settings]) => [
      name,
      { name, settings, members: records.filter((record) => record.settings.group === name) },
    ]),
  );
  for (const record of records) {
    const group = record.settings.group;
    if (group !== undefined && !views.has(group)) {
      throw new Error(`node "${record.settings.name}" names an unknown group "${group}"`);
    }
  }
  return views;
}
