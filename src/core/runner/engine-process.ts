/**
 * One engine process: spawned in its own process group with stdout and stderr appended straight
 * to the engine log (the file descriptor is the engine's own, so nothing is lost if svc dies),
 * tied to svc's life with a parent-death signal where the platform has one, and stopped with
 * SIGTERM, then SIGKILL after a grace period (GUIDE D10).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';

import { SvcError } from '../errors.ts';

export interface EngineExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface EngineProcessOptions {
  /** Absolute path of the executable. */
  readonly bin: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly logPath: string;
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
  await mkdir(dirname(options.logPath), { recursive: true, mode: 0o700 });
  const log = await open(options.logPath, 'a', 0o600);
  let child: ChildProcess;
  let exited: Promise<EngineExit>;
  let spawned: Promise<Error | undefined>;
  try {
    const [command, args] =
      SETPRIV === undefined
        ? [options.bin, [...options.args]]
        : [SETPRIV, ['--pdeathsig', 'SIGTERM', '--', options.bin, ...options.args]];
    child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
      env: { ...options.env },
    });
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
    // The child holds its own copy of the descriptor; ours is no longer needed.
    await log.close();
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
      `the engine exited during start-up (${describeExit(early)}); see ${options.logPath}`,
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
