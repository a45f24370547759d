/**
 * Exclusive and persistent groups (docs/design.md D31), pure: which members of other groups must
 * stop before a node may start, and which of them may go now.
 *
 * Two groups clash when one is exclusive and the other is not persistent: starting a member of an
 * exclusive group first stops the running members of every other group that is not persistent,
 * and starting a member of any non-persistent group first stops the running members of an
 * exclusive group that is not persistent itself (otherwise the second start would put it beside
 * the exclusive one). So a member of an exclusive, non-persistent group never runs beside a member
 * of a non-persistent other group, whichever starts first; a persistent group is never stopped by
 * another's start (an exclusive persistent group still clears the others when it starts). Nodes
 * in no group neither clear nor are cleared.
 *
 * With a swap's rules (groups.ts `holdReason`): a member that is idle and past `minResidency`
 * goes now; one that is busy, within its residency or coming up is waited for (a request) or
 * names the refusal (an operator's start, unless forced); one that is stopping is waited for.
 */
import type { HoldReason } from '../types.ts';
import { type GroupView, holders, holdReason } from './groups.ts';
import type { NodeRecord } from './nodes.ts';

/** A member that must stop first and cannot go now, with why. */
export interface Held {
  readonly member: NodeRecord;
  readonly group: string;
  readonly hold: HoldReason;
}

export interface Clearance {
  /** Members to stop now: up, idle, past their residency. */
  readonly idle: readonly NodeRecord[];
  /** Members that must stop first but cannot now (stopping ones included). */
  readonly held: readonly Held[];
}

const CLEAR: Clearance = { idle: [], held: [] };

/** Whether `other`'s members must stop before one of `own`'s starts (see above). */
function clashes(own: GroupView, other: GroupView): boolean {
  if (own === other || other.settings.persistent === true) {
    return false;
  }
  return (
    own.settings.exclusive === true ||
    (other.settings.exclusive === true && own.settings.persistent !== true)
  );
}

/** Whether any group is exclusive: when none is, nothing here applies. */
export function anyExclusive(groups: ReadonlyMap<string, GroupView>): boolean {
  for (const group of groups.values()) {
    if (group.settings.exclusive === true) {
      return true;
    }
  }
  return false;
}

/** What stands between `own`'s member and its start, in file order of groups and members. */
export function clearance(
  groups: ReadonlyMap<string, GroupView>,
  own: GroupView | undefined,
  queuedFor: (record: NodeRecord) => number,
  now: number,
): Clearance {
  if (own === undefined || !anyExclusive(groups)) {
    return CLEAR;
  }
  const idle: NodeRecord[] = [];
  const held: Held[] = [];
  for (const other of groups.values()) {
    if (!clashes(own, other)) {
      continue;
    }
    for (const member of holders(other)) {
      const hold = holdReason(member, other.settings, queuedFor, now);
      if (hold === undefined) {
        idle.push(member);
      } else {
        held.push({ member, group: other.name, hold });
      }
    }
  }
  return idle.length === 0 && held.length === 0 ? CLEAR : { idle, held };
}

export function isClear(clear: Clearance): boolean {
  return clear.idle.length === 0 && clear.held.length === 0;
}

/** The first member that holds the start up, as a refusal or a wait names it. */
export function firstHeld(
  clear: Clearance,
): ({ readonly group: string; readonly holder: string } & HoldReason) | undefined {
  const first = clear.held.find((entry) => entry.hold.why !== 'stopping') ?? clear.held[0];
  return first === undefined
    ? undefined
    : { group: first.group, holder: first.member.settings.name, ...first.hold };
}
