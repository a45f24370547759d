/**
 * The second line of defence against orphaned engines (the first is the engine watchdog): the
 * daemon records the engine's process group while it runs, and the next daemon over the same
 * config dir takes down whatever of that group is still alive before it answers anything.
 *
 * A recycled PID is never signalled: the leader must still have the start time recorded for it
 * (or, for a record without one, the recorded binary in its command line). With the leader gone,
 * the group can still hold children; the kernel does not hand out a PID that is still in use as
 * a process group id, so live members of the recorded group are that engine's, and they must
 * also have started no earlier than the leader did.
 */
import { readFile, rm } from 'node:fs/promises';

import { writeFileAtomic } from '../fs/atomic-write.ts';
import { groupMembers, procStat, terminateGroup } from './process-group.ts';

export interface PidRecord {
  /** The engine's pid, which is its process group id. */
  readonly pid: number;
  readonly bin: string;
  readonly startedAt: string;
  /** The leader's start time in clock ticks after boot (/proc/<pid>/stat), when known. */
  readonly startTime?: number;
}

export async function writePidRecord(path: string, record: PidRecord): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(record)}\n`);
}

export async function clearPidRecord(path: string): Promise<void> {
  await rm(path, { force: true });
}

async function commandLineOf(pid: number): Promise<string | undefined> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ');
  } catch {
    return undefined;
  }
}

export interface GroupCheck {
  readonly members: (pgid: number) => number[];
  readonly startTimeOf: (pid: number) => number | undefined;
  readonly commandLineOf: (pid: number) => Promise<string | undefined>;
}

/** Which of the recorded group's live members are provably the recorded engine's. Pure over `check`. */
export async function recordedGroup(record: PidRecord, check: GroupCheck): Promise<number[]> {
  const { pid } = record;
  if (!Number.isInteger(pid) || pid <= 1) {
    return [];
  }
  const members = check.members(pid);
  if (members.length === 0) {
    return [];
  }
  const leaderStart = check.startTimeOf(pid);
  if (leaderStart !== undefined && members.includes(pid)) {
    const same =
      record.startTime === undefined
        ? (await check.commandLineOf(pid))?.includes(record.bin) === true
        : leaderStart === record.startTime;
    return same ? members : [];
  }
  // The leader is gone; its children may not be. Without a recorded start time nothing proves
  // they are the engine's, so they are left alone.
  if (record.startTime === undefined) {
    return [];
  }
  const startTime = record.startTime;
  return members.filter((member) => (check.startTimeOf(member) ?? -1) >= startTime);
}

const LIVE_CHECK: GroupCheck = {
  members: groupMembers,
  startTimeOf: (pid) => procStat(pid)?.startTime,
  commandLineOf,
};

/**
 * Takes down the engine group a previous daemon left behind, if any: SIGTERM, then SIGKILL after
 * `graceMs`, and waits until the group is empty (so its port is free). Returns the group id it
 * stopped, or undefined when there was nothing to do. The record is removed either way.
 */
export async function reapRecordedEngine(
  path: string,
  graceMs = 2_000,
  check: GroupCheck = LIVE_CHECK,
): Promise<number | undefined> {
  let record: PidRecord;
  try {
    record = JSON.parse(await readFile(path, 'utf8')) as PidRecord;
  } catch {
    await clearPidRecord(path);
    return undefined;
  }
  const ours = await recordedGroup(record, check);
  if (ours.length > 0) {
    await terminateGroup(record.pid, graceMs, { members: check.members });
  }
  await clearPidRecord(path);
  return ours.length > 0 ? record.pid : undefined;
}
