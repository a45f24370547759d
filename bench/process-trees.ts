/**
 * Stopping what a benchmark started, however deep: a gateway's or daemon's engines run under a
 * watchdog, grandchildren of the benchmark. Their trees are read from /proc (Linux) before the
 * children are asked to stop; whatever of them outlives that is killed by PID. A PID is only
 * signalled while it still has the start time it was read with, so a recycled one is left alone.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

import { stopChildren } from './support.ts';

interface Running {
  readonly pid: number;
  /** Start time in clock ticks after boot (/proc/<pid>/stat field 22). */
  readonly start: string;
}

/** The live processes now: PID → parent PID and start time; zombies count as gone. */
function table(): Map<number, { ppid: number; start: string }> {
  const processes = new Map<number, { ppid: number; start: string }>();
  for (const entry of readdirSync('/proc')) {
    if (/^\d+$/.test(entry)) {
      try {
        // "pid (comm) state ppid …": comm may hold spaces, so read after the last ')'.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (fields[0] !== 'Z') {
          processes.set(Number(entry), { ppid: Number(fields[1]), start: fields[19] ?? '' });
        }
      } catch {
        // ended while we looked
      }
    }
  }
  return processes;
}

/** Each root and every live descendant of it. */
function trees(roots: readonly number[]): Running[] {
  const processes = table();
  const found = roots.filter((pid) => processes.has(pid));
  for (let index = 0; index < found.length; index += 1) {
    for (const [pid, { ppid }] of processes) {
      if (ppid === found[index] && !found.includes(pid)) {
        found.push(pid);
      }
    }
  }
  return found.map((pid) => ({ pid, start: processes.get(pid)?.start ?? '' }));
}

/**
 * SIGTERMs each child (newest first, as stopChildren does) and waits up to `graceMs` for all to
 * exit, then SIGKILLs by PID every process of their trees, read before the signal, still alive.
 */
export async function stopChildTrees(children: ChildProcess[], graceMs = 30_000): Promise<void> {
  const started = trees(children.flatMap((child) => (child.pid === undefined ? [] : [child.pid])));
  let timer: NodeJS.Timeout | undefined;
  const stopping = stopChildren(children);
  await Promise.race([
    stopping,
    new Promise((resolve) => {
      timer = setTimeout(resolve, graceMs);
    }),
  ]);
  clearTimeout(timer);
  const now = table();
  for (const { pid, start } of started) {
    if (now.get(pid)?.start === start) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone since
      }
    }
  }
  // Every child is gone now (killed if it had not stopped), so this no longer waits.
  await stopping;
}
