/**
 * Starts the built `svc daemon` on 127.0.0.1 port 0 for a test and talks to it with Node's own
 * HTTP client. Everything the daemon prints and every reply body is kept, so a suite can check
 * that no secret ever appeared in any of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ENGINE_BIN_DIR, REPO_ROOT } from '../prerequisites/engines.ts';
import { startProcess, type TestProcess } from '../processes/processes.ts';
import { eventually } from '../time/eventually.ts';
import { SVC } from './svc.ts';

export const FAKE_BIN_DIR = join(REPO_ROOT, 'test', 'fixtures', 'bin');

/** Every text a daemon printed or replied in this test file, for the secret scan. */
export const transcript: string[] = [];

export interface TestDaemon {
  readonly url: string;
  readonly process: TestProcess;
  call(
    method: string,
    path: string,
    options?: { body?: unknown; raw?: string; token?: string | null },
  ): Promise<Reply>;
  /** SIGTERM and wait for the exit code. */
  terminate(): Promise<number | NodeJS.Signals>;
}

export interface Reply {
  readonly status: number;
  readonly json: Record<string, unknown>;
  readonly text: string;
}

export interface DaemonStart {
  readonly configDir: string;
  readonly token?: string;
  readonly args?: readonly string[];
  /** Directories put first on the daemon's PATH (engines found there win). */
  readonly path?: readonly string[];
  readonly env?: Record<string, string>;
}

export async function startTestDaemon(start: DaemonStart): Promise<TestDaemon> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PATH: [...(start.path ?? []), ENGINE_BIN_DIR, process.env['PATH'] ?? ''].join(':'),
    SVC_CONFIG_DIR: start.configDir,
    SVC_LOG_LEVEL: 'debug',
    SVC_API_TOKEN: start.token,
    SVC_STOP_GRACE_SECONDS: '1',
    ...start.env,
  };
  const daemon = startProcess(SVC, ['daemon', '--api-addr', '127.0.0.1:0', ...(start.args ?? [])], {
    env,
  });
  const [, url = ''] = await daemon.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const token = start.token;

  return {
    url,
    process: daemon,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = {};
      const auth = options.token === undefined ? token : options.token;
      if (auth !== undefined && auth !== null) {
        headers['authorization'] = `Bearer ${auth}`;
      }
      let body: string | undefined = options.raw;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
      }
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
      }
      const reply = await fetch(`${url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
      });
      const text = await reply.text();
      transcript.push(text);
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // not JSON; the test looks at text
      }
      return { status: reply.status, json, text };
    },
    async terminate() {
      process.kill(daemon.pid, 'SIGTERM');
      const status = await daemon.exited();
      transcript.push(daemon.output());
      return status;
    },
  };
}

/** Keeps a daemon's output for the secret scan even when the test kills it another way. */
export function recordOutput(daemon: TestDaemon): void {
  transcript.push(daemon.process.output());
}

export { freePort } from '../http/net.ts';

/** Waits until `url` answers `status` (a refused connection is "not yet"). */
export async function waitForStatus(
  url: string,
  status: number,
  init: RequestInit = {},
  timeoutMs = 15_000,
): Promise<void> {
  await eventually(
    async (): Promise<number | string> => {
      try {
        const reply = await fetch(url, init);
        await reply.body?.cancel();
        return reply.status;
      } catch (error) {
        // fetch says only "fetch failed"; the cause says why (ECONNREFUSED while not listening).
        const { message, cause } = error as Error & { cause?: { code?: string; message?: string } };
        return `no answer: ${cause?.code ?? cause?.message ?? message}`;
      }
    },
    (answer) => answer === status,
    `${url} to answer ${status}`,
    { timeoutMs },
  );
}

/**
 * Whether a process with this PID is alive. A zombie is not: it holds no memory or port, and an
 * orphaned one may wait forever for a PID 1 that does not reap (containers).
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return process.platform !== 'linux';
  }
}
