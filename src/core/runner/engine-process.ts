/**
 * One engine process, started through the engine watchdog (engine-watchdog.ts) so that its whole
 * process group dies with svc, however svc ends. Engine stdout and stderr go straight to the
 * engine log (the descriptor is the engine's own, so nothing is lost if svc dies), or are copied
 * or forwarded by svc. A requested stop signals the engine's group: SIGTERM, then SIGKILL after
 * the grace period (docs/design.md D10).
 */
import { spawn, type SpawnOptions, type StdioOptions } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';

import { SvcError } from '../errors.ts';
import { describeExit, type EngineExit } from './engine-exit.ts';
import { signalGroup } from './process-group.ts';
import { type EngineTimers, startWindow, within } from './start-window.ts';
import { type WatchdogChild, watchWatchdog } from './watchdog-events.ts';
import { watchdogPath } from './watchdog-path.ts';

export { describeExit, type EngineExit } from './engine-exit.ts';
export { START_PROBE_MS } from './start-window.ts';

/**
 * What an engine process touches beyond its log: the watchdog's spawn, the group signal, the clock and the
 * timer. Injected (the real ones by default) so the start window and the stop's escalation have
 * unit tests without processes or waiting.
 */
export interface EngineProcessEdges extends EngineTimers {
  /** Starts the engine watchdog (dist/watchdog.js) with the engine's command line. */
  readonly spawnWatchdog: (engineArgv: readonly string[], options: SpawnOptions) => WatchdogChild;
  readonly signalGroup: (pgid: number, signal: NodeJS.Signals) => void;
}

export const ENGINE_PROCESS_EDGES: EngineProcessEdges = {
  spawnWatchdog: (engineArgv, options) =>
    spawn(process.execPath, [watchdogPath(), ...engineArgv], options),
  signalGroup: (pgid, signal) => {
    signalGroup(pgid, signal);
  },
  now: () => Date.now(),
  setTimer: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    return () => {
      clearTimeout(timer);
    };
  },
};

/** How long a SIGKILLed group may take to be gone before the stop calls it stuck. */
export const KILL_WAIT_MS = 5_000;

/**
 * Where engine output goes. `log`: the engine writes the log file itself (daemon, serve's view).
 * `log+forward`: svc copies each chunk to the log and to its own stdout/stderr (`serve --api` off a
 * terminal). `forward`: the engine shares svc's stdout/stderr (a plain piped `serve`,
 * docs/design.md D4).
 */
export type EngineOutput =
  | { readonly kind: 'log'; readonly path: string }
  | {
      readonly kind: 'log+forward';
      readonly path: string;
      readonly stdout: NodeJS.WritableStream;
      readonly stderr: NodeJS.WritableStream;
    }
  | { readonly kind: 'forward' };

export interface EngineProcessOptions {
  /** Absolute path of the executable. */
  readonly bin: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly output: EngineOutput;
  /** An exit within this window counts as a failed start (spec §3: 400). */
  readonly startWindowMs: number;
  /**
   * Whether the engine already answers its health check: an engine that does has started, so the
   * window ends early (a woken node is not held back by it). Asked every START_PROBE_MS.
   */
  readonly answering?: () => Promise<boolean>;
}

export interface EngineProcess {
  /** The engine's pid, which is also its process group id. */
  readonly pid: number;
  /** The watchdog parenting the engine. */
  readonly watchdogPid: number;
  readonly startedAt: Date;
  /** Resolves once with the engine's own exit, however it ended. */
  readonly exited: Promise<EngineExit>;
  /**
   * SIGTERM the group (or `terminate` instead: a command engine's STOP, docs/design.md D31),
   * SIGKILL after `graceMs`; resolves once the whole group is gone, or 'stuck' if even SIGKILL
   * does not end it.
   */
  stop(graceMs: number, terminate?: () => void): Promise<'terminated' | 'killed' | 'stuck'>;
}

/** Raised when the engine could not be started or exited within the start window. */
export class EngineStartError extends SvcError {
  constructor(
    readonly reason: string,
    readonly exit?: EngineExit,
  ) {
    super('ERR_ENGINE_START_FAILED', reason);
  }
}

export async function startEngineProcess(
  options: EngineProcessOptions,
  edges: EngineProcessEdges = ENGINE_PROCESS_EDGES,
): Promise<EngineProcess> {
  const { output } = options;
  const logPath = output.kind === 'forward' ? undefined : output.path;
  if (logPath !== undefined) {
    await mkdir(dirname(logPath), { recursive: true, mode: 0o700 });
  }
  const log = logPath === undefined ? undefined : await open(logPath, 'a', 0o600);
  // fd 0: the lifeline (EOF when svc is gone); fd 3: the watchdog's status events.
  const stdio: StdioOptions =
    output.kind === 'log' && log !== undefined
      ? ['pipe', log.fd, log.fd, 'pipe']
      : output.kind === 'forward'
        ? ['pipe', 'inherit', 'inherit', 'pipe']
        : ['pipe', 'pipe', 'pipe', 'pipe'];
  let child: WatchdogChild | undefined;
  let logClosed = false;
  try {
    // Its own session: a group kill of the engine, or a terminal's Ctrl+C to svc, never reaches it.
    child = edges.spawnWatchdog([options.bin, ...options.args], {
      detached: true,
      stdio,
      env: { ...options.env },
    });
    if (output.kind === 'log+forward' && log !== undefined) {
      // Appends happen in arrival order on one descriptor; the copies go to svc's own streams.
      const tee = (to: NodeJS.WritableStream) => (chunk: Buffer) => {
        if (!logClosed) {
          appendFileSync(log.fd, chunk);
        }
        to.write(chunk);
      };
      child.stdout?.on('data', tee(output.stdout));
      child.stderr?.on('data', tee(output.stderr));
    }
  } finally {
    // With `log` the child holds its own copy of the descriptor; with `log+forward` ours stays
    // open until the engine's streams end (unless there is no engine).
    if (output.kind === 'log' || child === undefined) {
      await log?.close();
    }
  }
  // Listen before anything else awaits: 'spawn', 'error' and the status pipe fire on later ticks.
  const { spawned, engineExited, exited, closed, exitReported } = watchWatchdog(child);
  // The lifeline has done its work once the watchdog is gone; left open it would keep svc's
  // event loop alive (serve ends when its loop empties).
  void closed.then(() => {
    child.stdin?.destroy();
  });
  if (output.kind === 'log+forward') {
    // 'close', not 'exit': a grandchild may still hold the pipes after the engine itself exits.
    child.once('close', () => {
      logClosed = true;
      void log?.close();
    });
  }
  const started = await spawned;
  if ('error' in started) {
    throw new EngineStartError(`could not start ${options.bin}: ${started.error}`);
  }
  const pid = started.pid;
  const watchdogPid = child.pid ?? 0;

  const early = await startWindow(edges, engineExited, options.startWindowMs, options.answering);
  if (early !== 'started') {
    throw new EngineStartError(`the engine exited during start-up (${describeExit(early)})`, early);
  }
  // The watchdog ending without having reported the engine's exit (someone killed it): the
  // engine's group must not outlive it.
  // (Only then: after a reported exit the group is empty and its id may be reused.)
  void closed.then(() => {
    if (!exitReported()) {
      edges.signalGroup(pid, 'SIGKILL');
    }
  });

  return {
    pid,
    watchdogPid,
    startedAt: new Date(edges.now()),
    exited,
    async stop(graceMs, terminate) {
      // The watchdog ends once the group is empty, so its end is "everything is gone".
      if (terminate === undefined) {
        edges.signalGroup(pid, 'SIGTERM');
      } else {
        terminate();
      }
      if ((await within(edges, closed, graceMs)) !== 'timeout') {
        return 'terminated';
      }
      edges.signalGroup(pid, 'SIGKILL');
      return (await within(edges, closed, KILL_WAIT_MS)) === 'timeout' ? 'stuck' : 'killed';
    },
  };
}
