/**
 * The engine watchdog: a small Node process between svc and the engine, so that no process of
 * the engine's tree outlives svc, however svc ends (SIGKILL included), without relying on the
 * engine's cooperation.
 *
 * svc spawns it with a pipe on its stdin (the lifeline) and a status pipe on fd 3. The watchdog
 * starts the engine as the leader of a new session and process group, reports `spawned` (the
 * engine pid, which is the group id), and later `exit` (the engine's own code or signal,
 * forwarded as is). It ends only once the group is empty:
 * - lifeline EOF (svc is gone): SIGTERM the group, SIGKILL it after LIFELINE_GRACE_MS (the
 *   whole teardown fits in 5 s);
 * - the engine exited (a crash, or a stop svc asked for by signalling the group): what it left
 *   in the group gets SIGTERM, then SIGKILL after LEFTOVER_GRACE_MS; an orphaned vLLM worker
 *   would otherwise keep holding GPU memory.
 * The watchdog sits in its own session, outside the engine's group, so a group kill never hits
 * it; SIGINT from a terminal is svc's to handle and is ignored here; SIGTERM or SIGHUP sent to
 * the watchdog itself takes the group down as a lifeline loss does.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';

import { terminateGroup } from './process-group.ts';

export const LIFELINE_GRACE_MS = 3_000;
export const LEFTOVER_GRACE_MS = 2_000;
/** fd of the status pipe to svc. */
export const STATUS_FD = 3;

export type WatchdogEvent =
  | { readonly event: 'spawned'; readonly pid: number }
  | { readonly event: 'error'; readonly message: string }
  | { readonly event: 'exit'; readonly code: number | null; readonly signal: string | null };

/** One event per line on the status pipe. */
export function encodeEvent(event: WatchdogEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/** Reads the events out of what arrived so far; returns them and the unfinished rest. */
export function decodeEvents(buffered: string): { events: WatchdogEvent[]; rest: string } {
  const lines = buffered.split('\n');
  const rest = lines.pop() ?? '';
  const events: WatchdogEvent[] = [];
  for (const line of lines) {
    try {
      events.push(JSON.parse(line) as WatchdogEvent);
    } catch {
      // not ours: nothing else writes to this pipe
    }
  }
  return { events, rest };
}

function report(event: WatchdogEvent): void {
  try {
    writeSync(STATUS_FD, encodeEvent(event));
  } catch {
    // svc is gone; the lifeline will say so
  }
}

/**
 * argv: the engine binary and its arguments. Resolves with the watchdog's own exit status once
 * the engine's group is empty (the entry, watchdog.ts, exits with it).
 */
export function runWatchdog(argv: readonly string[]): Promise<number> {
  const [bin, ...args] = argv;
  if (bin === undefined) {
    report({ event: 'error', message: 'no engine command given to the watchdog' });
    return Promise.resolve(2);
  }
  let pgid: number | undefined;
  let ending: Promise<number> | undefined;
  let done: (status: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    done = resolve;
  });
  const finish = (graceMs: number): Promise<number> => {
    ending ??= (async () => {
      if (pgid !== undefined) {
        await terminateGroup(pgid, graceMs);
      }
      done(0);
      return 0;
    })();
    return ending;
  };
  process.on('SIGINT', () => undefined);
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => void finish(LIFELINE_GRACE_MS));
  }
  process.stdin.on('end', () => void finish(LIFELINE_GRACE_MS));
  process.stdin.on('error', () => void finish(LIFELINE_GRACE_MS));
  process.stdin.resume();

  // fd 3 is /dev/null in the engine: the status pipe came to the watchdog without close-on-exec,
  // and an engine (or a worker that escapes the group) holding it would keep svc from seeing the
  // watchdog's end.
  const devNull = openSync('/dev/null', 'r');
  const child = spawn(bin, args, {
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', devNull],
  });
  closeSync(devNull);
  child.once('error', (error) => {
    report({ event: 'error', message: error.message });
    done(127);
  });
  child.once('spawn', () => {
    pgid = child.pid;
    if (pgid !== undefined) {
      report({ event: 'spawned', pid: pgid });
    }
  });
  child.once('exit', (code, signal) => {
    report({ event: 'exit', code, signal });
    void finish(LEFTOVER_GRACE_MS);
  });
  return finished;
}
