/**
 * The processes a test started indirectly (npm → node → svc → llama-server), read from Linux's
 * /proc, so a test can check that a signal to the top one stopped every one of them, and kill
 * any that survive by PID when the test ends.
 */
import { readdirSync, readFileSync } from 'node:fs';

import { onTestFinished } from 'vitest';

/** PID → parent PID for every process now alive; zombies count as gone. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') {
        map.set(Number(entry), Number(ppid));
      }
    } catch {
      // ended while we looked
    }
  }
  return map;
}

/** `root` and every live descendant. */
export function processTree(root: number): number[] {
  const all = parents();
  const tree = all.has(root) ? [root] : [];
  for (let index = 0; index < tree.length; index += 1) {
    for (const [pid, ppid] of all) {
      if (ppid === tree[index]) {
        tree.push(pid);
      }
    }
  }
  return tree;
}

/** Which of `pids` are still alive (not counting zombies). */
export function alive(pids: readonly number[]): number[] {
  const all = parents();
  return pids.filter((pid) => all.has(pid));
}

/** Kills by PID whatever of `pids` is still alive when the current test ends. */
export function killSurvivorsAfterTest(pids: readonly number[]): void {
  onTestFinished(() => {
    for (const pid of alive(pids)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}
