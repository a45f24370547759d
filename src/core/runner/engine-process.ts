/**
 * One engine process: spawned in its own process group with stdout and stderr appended straight
 * to the engine log (the file descriptor is the engine's own, so nothing is lost if svc dies),
 * tied to svc's life with a parent-death signal where the platform has one, and stopped with
 * SIGTERM, then SIGKILL after a grace period (GUIDE D10).
 */
import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';

import { SvcError } from '../errors.ts';

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
}

export interface EngineProcess {
  readonly pid: number;
  readonly startedAt: Date;
  /** Resolves once when the process has exited, however it ended. */
  readonly exited: Promise<EngineExit>;
  /** SIGTERM the group, SIGKILL after `graceMs`; 'stuck' if even that does not end it. */
  stop(graceMs: number): Promise<'terminated' | 'killed' | 'stuck'>;
}

/** util-linux setpriv: the kernel sends the engine SIGTERM when svc dies, even by SIGKILL. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

export function describeExit(exit: EngineExit): string {
  return exit.signal === null ? `exit code ${exit.code ?? '?'}` : `signal ${exit.signal}`;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
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

export async function startEngineProcess(options: EngineProcessOptions): Promise<EngineProcess> {
  const { output } = options;
  const logPath = output.kind === 'forward' ? undefined : output.path;
  if (logPath !== undefined) {
    await mkdir(dirname(logPath), { recursive: true, mode: 0o700 });
  }
  const log = logPath === undefined ? undefined : await open(logPath, 'a', 0o600);
  const stdio: StdioOptions =
    output.kind === 'log' && log !== undefined
      ? ['ignore', log.fd, log.fd]
      : output.kind === 'forward'
        ? ['ignore', 'inherit', 'inherit']
        : ['ignore', 'pipe', 'pipe'];
  let child: ChildProcess;
  let logClosed = false;
  let exited: Promise<EngineExit>;
  let spawned: Promise<Error | undefined>;
  try {
    const [command, args] =
      SETPRIV === undefined
        ? [options.bin, [...options.args]]
        : [SETPRIV, ['--pdeathsig', 'SIGTERM', '--', options.bin, ...options.args]];
    child = spawn(command, args, { detached: true, stdio, env: { ...options.env } });
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
    // Listen before anything else awaits: 'spawn' and 'error' fire on the next tick.
    exited = new Promise<EngineExit>((resolve) => {
      child.once('exit', (code, signal) => {
        resolve({ code, signal });
      });
    });
    spawned = new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => {
        resolve(undefined);
      });
      child.once('error', resolve);
    });
  } finally {
    // With `log` the child holds its own copy of the descriptor; with `log+forward` ours stays
    // open until the engine's streams end.
    if (output.kind === 'log') {
      await log?.close();
    }
  }
  if (output.kind === 'log+forward') {
    // 'close', not 'exit': a grandchild may still hold the pipes after the engine itself exits.
    child.once('close', () => {
      logClosed = true;
      void log?.close();
    });
  }
  const failure = await spawned;
  if (failure !== undefined || child.pid === undefined) {
    throw new SvcError(
      'ERR_ENGINE_START_FAILED',
      `could not start ${options.bin}: ${failure?.message ?? 'no pid'}`,
    );
  }
  const pid = child.pid;

  const early = await waitFor(exited, options.startWindowMs);
  if (early !== 'timeout') {
    throw new SvcError(
      'ERR_ENGINE_START_FAILED',
      `the engine exited during start-up (${describeExit(early)})${logPath === undefined ? '' : `; see ${logPath}`}`,
    );
  }

  return {
    pid,
    startedAt: new Date(),
    exited,
    async stop(graceMs) {
      signalGroup(pid, 'SIGTERM');
      if ((await waitFor(exited, graceMs)) !== 'timeout') {
        return 'terminated';
      }
      signalGroup(pid, 'SIGKILL');
      return (await waitFor(exited, 5_000)) === 'timeout' ? 'stuck' : 'killed';
    },
  };
}
