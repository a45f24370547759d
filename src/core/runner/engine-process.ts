/**
 * One engine process, started through the engine watchdog (engine-watchdog.ts) so that its whole
 * process group dies with svc, however svc ends. Engine stdout and stderr go straight to the
 * engine log (the descriptor is the engine's own, so nothing is lost if svc dies), or are copied
 * or forwarded by svc. A requested stop signals the engine's group: SIGTERM, then SIGKILL after
 * the grace period (GUIDE D10).
 */
import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';

import { SvcError } from '../errors.ts';
import { decodeEvents, type WatchdogEvent } from './engine-watchdog.ts';
import { signalGroup } from './process-group.ts';
import { watchdogPath } from './watchdog-path.ts';

export interface EngineExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * Where engine output goes. `log`: the engine writes the log file itself (daemon, serve's view).
 * `log+forward`: svc copies each chunk to the log and to its own stdout/stderr (`serve --api` off a
 * terminal). `forward`: the engine shares svc's stdout/stderr (a plain piped `serve`, GUIDE D4).
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

export const START_PROBE_MS = 100;

/** The start window: the engine's exit within it, or 'started' when it ends or the engine answers. */
async function startWindow(
  exited: Promise<EngineExit>,
  windowMs: number,
  answering: (() => Promise<boolean>) | undefined,
): Promise<EngineExit | 'started'> {
  const deadline = Date.now() + windowMs;
  for (;;) {
    const left = deadline - Date.now();
    const step = answering === undefined ? left : Math.min(left, START_PROBE_MS);
    const outcome = await waitFor(exited, Math.max(0, step));
    if (outcome !== 'timeout') {
      return outcome;
    }
    if (Date.now() >= deadline || (answering !== undefined && (await answering()))) {
      return 'started';
    }
  }
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
   * SIGTERM the group, SIGKILL after `graceMs`; resolves once the whole group is gone, or
   * 'stuck' if even SIGKILL does not end it.
   */
  stop(graceMs: number): Promise<'terminated' | 'killed' | 'stuck'>;
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

export function describeExit(exit: EngineExit): string {
  return exit.signal === null ? `exit code ${exit.code ?? '?'}` : `signal ${exit.signal}`;
}

function waitFor<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      resolve('timeout');
    }, ms);
    void promise.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/**
 * The watchdog's events, as promises: the first of spawned/error, and its end. The engine's exit
 * settles when the watchdog has ended, that is once the whole group is gone, so "stopped" or
 * "crashed" always means nothing of the engine is left (its port and GPU memory are free).
 */
function watch(child: ChildProcess): {
  spawned: Promise<{ pid: number } | { error: string }>;
  /** The engine's own exit as soon as the watchdog reports it (the start window needs it fast). */
  engineExited: Promise<EngineExit>;
  exited: Promise<EngineExit>;
  closed: Promise<void>;
  exitReported: () => boolean;
} {
  let reported: EngineExit | undefined;
  let onReported: (exit: EngineExit) => void = () => undefined;
  const engineExited = new Promise<EngineExit>((resolve) => {
    onReported = resolve;
  });
  let onSpawned: (value: { pid: number } | { error: string }) => void = () => undefined;
  const spawned = new Promise<{ pid: number } | { error: string }>((resolve) => {
    onSpawned = resolve;
  });
  const handle = (event: WatchdogEvent): void => {
    if (event.event === 'spawned') {
      onSpawned({ pid: event.pid });
    } else if (event.event === 'error') {
      onSpawned({ error: event.message });
    } else {
      reported = { code: event.code, signal: event.signal as NodeJS.Signals | null };
      onReported(reported);
    }
  };
  let buffered = '';
  const status = child.stdio[3] as Readable | null;
  status?.on('data', (chunk: Buffer) => {
    const { events, rest } = decodeEvents(buffered + chunk.toString('utf8'));
    buffered = rest;
    events.forEach(handle);
  });
  // Only the watchdog holds the status pipe, so its end means every event has been read.
  const statusRead = new Promise<void>((resolve) => {
    if (status === null) {
      resolve();
      return;
    }
    status.once('close', resolve);
    status.once('error', () => {
      resolve();
    });
  });
  let onExit: (exit: EngineExit) => void = () => undefined;
  const exited = new Promise<EngineExit>((resolve) => {
    onExit = resolve;
  });
  const closed = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      onSpawned({ error: error.message });
      resolve();
    });
    child.once('exit', (code, signal) => {
      void statusRead.then(() => {
        // Settles nothing already settled. Without a reported exit the watchdog itself was
        // killed; its own end stands in.
        onSpawned({ error: `the engine watchdog ended (${describeExit({ code, signal })})` });
        onExit(reported ?? { code, signal });
        onReported(reported ?? { code, signal });
        resolve();
      });
    });
  });
  return { spawned, engineExited, exited, closed, exitReported: () => reported !== undefined };
}

export async function startEngineProcess(options: EngineProcessOptions): Promise<EngineProcess> {
  const { output } = options;
  const logPath = output.kind === 'forward' ? undefined : output.path;
  if (logPath !== undefined) {
    await mkdir(dirname(logPath), { recursive: true, mode: 0o700 });
  }
  const watchdog = watchdogPath();
  const log = logPath === undefined ? undefined : await open(logPath, 'a', 0o600);
  // fd 0: the lifeline (EOF when svc is gone); fd 3: the watchdog's status events.
  const stdio: StdioOptions =
    output.kind === 'log' && log !== undefined
      ? ['pipe', log.fd, log.fd, 'pipe']
      : output.kind === 'forward'
        ? ['pipe', 'inherit', 'inherit', 'pipe']
        : ['pipe', 'pipe', 'pipe', 'pipe'];
  let child: ChildProcess;
  let logClosed = false;
  try {
    // Its own session: a group kill of the engine, or a terminal's Ctrl+C to svc, never reaches it.
    child = spawn(process.execPath, [watchdog, options.bin, ...options.args], {
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
    // open until the engine's streams end.
    if (output.kind === 'log') {
      await log?.close();
    }
  }
  // Listen before anything else awaits: 'spawn', 'error' and the status pipe fire on later ticks.
  const { spawned, engineExited, exited, closed, exitReported } = watch(child);
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

  const early = await startWindow(engineExited, options.startWindowMs, options.answering);
  if (early !== 'started') {
    throw new EngineStartError(`the engine exited during start-up (${describeExit(early)})`, early);
  }
  // The watchdog ending without having reported the engine's exit (someone killed it): the
  // engine's group must not outlive it.
  // (Only then: after a reported exit the group is empty and its id may be reused.)
  void closed.then(() => {
    if (!exitReported()) {
      signalGroup(pid, 'SIGKILL');
    }
  });

  return {
    pid,
    watchdogPid,
    startedAt: new Date(),
    exited,
    async stop(graceMs) {
      // The watchdog ends once the group is empty, so its end is "everything is gone".
      signalGroup(pid, 'SIGTERM');
      if ((await waitFor(closed, graceMs)) !== 'timeout') {
        return 'terminated';
      }
      signalGroup(pid, 'SIGKILL');
      return (await waitFor(closed, 5_000)) === 'timeout' ? 'stuck' : 'killed';
    },
  };
}
