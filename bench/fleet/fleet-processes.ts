/**
 * The fleet-scale benchmark's processes (bench/fleet/fleet.ts, bench/fleet/fleet-paired.ts): the built gateway
 * under `ulimit -n 1024`, the simulated fleet and its engines, each tracked so a Ctrl-C mid-run
 * stops them by PID, and the timed request every figure is made of.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Pool } from 'undici';

import { waitForLine } from '../support.ts';

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export interface Spread {
  p50: number;
  p99: number;
}

export const spread = (values: number[]): Spread => ({
  p50: percentile(values, 50),
  p99: percentile(values, 99),
});

/** Every process this benchmark started and has not yet stopped, for a Ctrl-C mid-run. */
const live = new Set<ChildProcess>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of live) {
      if (child.pid !== undefined && child.exitCode === null) {
        process.kill(child.pid, 'SIGKILL');
      }
    }
    // The handler was `once`: raised again, the signal ends this process the default way.
    process.kill(process.pid, signal);
  });
}

export function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
    return Promise.resolve();
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null) {
      process.kill(child.pid, 'SIGKILL');
    }
  }, 10_000);
  return exited.finally(() => clearTimeout(timer));
}

export async function statusCalls(statsPort: number): Promise<number> {
  const reply = await fetch(`http://127.0.0.1:${statsPort}/stats`);
  return ((await reply.json()) as { statusCalls: number }).statusCalls;
}

export function procFigures(pid: number): { rssMiB: number; descriptors: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: rssKiB / 1024, descriptors: readdirSync(`/proc/${pid}/fd`).length };
}

export interface RunningGateway {
  child: ChildProcess;
  pool: Pool;
  startupMs: number;
  log(): string;
}

export async function startGateway(
  cli: string,
  fleetFile: string,
  dir: string,
): Promise<RunningGateway> {
  const started = performance.now();
  // `exec` keeps the PID; the descriptor limit is the common default, below the largest fleets.
  const child = spawn(
    'sh',
    [
      '-c',
      'ulimit -n 1024 && exec "$0" "$@"',
      process.execPath,
      cli,
      'gateway',
      '--listen',
      '127.0.0.1:0',
      '-f',
      fleetFile,
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SVC_LOG_LEVEL: 'warn' } },
  );
  track(child);
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const [, url = ''] = await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const startupMs = performance.now() - started;
  return {
    child,
    pool: new Pool(url, { connections: 1, keepAliveTimeout: 60_000 }),
    startupMs,
    log: () => log,
  };
}

export async function timed(
  pool: Pool,
  path: string,
  body?: string,
): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const reply = await pool.request({
    path,
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
  await reply.body.arrayBuffer();
  return { ms: performance.now() - started, status: reply.statusCode };
}

export const completion = (model: string): string =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 });

export const WARM_UP = 50;
/** Steady traffic, not a flood: one request every 10 ms, so a run spans a few refresh periods. */
export const PACE_MS = 10;

/** bench/fleet/fake-fleet.ts as its own process; it exits when we close its stdin or stop it. */
export function startFakeFleet(nodes: number, dir: string, engines: string): ChildProcess {
  return track(
    spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'fake-fleet.ts'), String(nodes), dir, engines],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    ),
  );
}

/**
 * bench/fleet/fake-engines.ts as its own process, shared by every simulated fleet of a run; resolves
 * with the child and its ports as fake-fleet.ts takes them (`<port>,<port>,…`).
 */
export async function startFakeEngines(): Promise<{ child: ChildProcess; ports: string }> {
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fake-engines.ts')], {
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  const [, ports = ''] = await waitForLine(child, /engines ([\d,]+)/);
  return { child, ports };
}
