/**
 * An engine's process group: who is still in it, signalling all of it, and waiting for it to
 * empty. The engine is started as the leader of a new session and group, so its pgid is its pid
 * and every child it forks (vLLM's GPU workers) shares it unless it leaves on purpose.
 *
 * Membership comes from /proc (Linux): a process counts while it is in the group and not a
 * zombie. A zombie holds no memory, port or GPU, and an orphaned one waits for PID 1 to reap it,
 * which in a container may be never, so `kill(-pgid, 0)` alone (true while zombies remain) would
 * report a dead group as alive. Where there is no /proc, `kill(-pgid, 0)` is the fallback.
 */
import { readdirSync, readFileSync } from 'node:fs';

import { type Clock, wallClock } from '../clock.ts';

export interface ProcStat {
  readonly state: string;
  readonly pgrp: number;
  readonly session: number;
  /** Clock ticks after boot at which the process started: with the pid, a unique identity. */
  readonly startTime: number;
}

/** Parses /proc/<pid>/stat; the command name may hold spaces and parentheses, so fields start after the last ')'. */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) {
    return undefined;
  }
  // Fields after the name: state(3) ppid(4) pgrp(5) session(6) … starttime(22).
  const fields = text
    .slice(close + 2)
    .trim()
    .split(' ');
  const [state, , pgrp, session] = fields;
  const startTime = Number(fields[19]);
  if (state === undefined || !Number.isInteger(startTime)) {
    return undefined;
  }
  return { state, pgrp: Number(pgrp), session: Number(session), startTime };
}

export function procStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

const hasProc = (): boolean => procStat(process.pid) !== undefined;

/** Live (non-zombie) members of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  if (!hasProc()) {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) {
      continue;
    }
    const stat = procStat(pid);
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') {
      members.push(pid);
    }
  }
  return members;
}

/** Signals every process in the group; false when the group is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) {
    return false;
  }
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export type Sleep = (ms: number) => Promise<void>;

export const sleep: Sleep = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** How often an emptying group is looked at: the kernel has no event for "the group is empty". */
export const GROUP_POLL_MS = 100;

/** Resolves true once the group has no live member, false if `timeoutMs` passes first. */
export async function waitGroupGone(
  pgid: number,
  timeoutMs: number,
  options: { members?: (pgid: number) => number[]; sleep?: Sleep; now?: Clock } = {},
): Promise<boolean> {
  const members = options.members ?? groupMembers;
  const pause = options.sleep ?? sleep;
  const now = options.now ?? wallClock;
  const deadline = now() + timeoutMs;
  for (;;) {
    if (members(pgid).length === 0) {
      return true;
    }
    if (now() >= deadline) {
      return false;
    }
    await pause(GROUP_POLL_MS);
  }
}

/**
 * Ends the whole group: SIGTERM, then SIGKILL to whatever is left after `graceMs`, then waits a
 * little for the kill to land. Resolves to how it ended.
 */
export async function terminateGroup(
  pgid: number,
  graceMs: number,
  options: Parameters<typeof waitGroupGone>[2] & {
    signal?: (pgid: number, signal: NodeJS.Signals) => boolean;
  } = {},
): Promise<'gone' | 'terminated' | 'killed' | 'stuck'> {
  const members = options.members ?? groupMembers;
  const signal = options.signal ?? signalGroup;
  if (members(pgid).length === 0) {
    return 'gone';
  }
  signal(pgid, 'SIGTERM');
  if (await waitGroupGone(pgid, graceMs, options)) {
    return 'terminated';
  }
  signal(pgid, 'SIGKILL');
  return (await waitGroupGone(pgid, 1_000, options)) ? 'killed' : 'stuck';
}
