/**
 * Fleet scale (docs/benchmarks.md#fleet-scale): the built gateway in front of a simulated fleet
 * (bench/fake-fleet.ts, its own process) of 1, 100, 1,000 and 10,000 fake daemons plus a few fake
 * OpenAI engines, the gateway under `ulimit -n 1024`. Per size: start-up to the listening line;
 * `/v1/models` and `/v1/fleet` cold (the first call after start-up) and warm; routed completions
 * under steady sequential traffic, then the same with one hung node first in the file; status
 * requests per second at the nodes while traffic flows (and, once, while idle); gateway RSS and
 * descriptors. Request counts are fixed and every process is stopped by PID when done.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Pool } from 'undici';

import { waitForLine } from './support.ts';

export interface FleetFigures {
  nodes: number;
  startupMs: number;
  modelsCold: number;
  fleetCold: number;
  modelsWarm: { p50: number; p99: number };
  fleetWarm: { p50: number; p99: number };
  routed: { p50: number; p99: number };
  routedHung: { p50: number; p99: number };
  /** Status requests per second at the nodes while traffic flowed. */
  statusPerSecond: number;
  rssMiB: number;
  descriptors: number;
  /** 502/503/EMFILE seen anywhere (gateway log or replies). */
  errors: number;
}

export interface FleetBench {
  sizes: FleetFigures[];
  /** Routed completions, interleaved one for one: a 1-node fleet vs 1,000 nodes with one hung. */
  paired: { single: { p50: number; p99: number }; hung: { p50: number; p99: number } };
  idleStatusPerSecond: number;
  idleNodes: number;
  completions: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const spread = (values: number[]): { p50: number; p99: number } => ({
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

function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

function stopChild(child: ChildProcess): Promise<void> {
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

async function statusCalls(statsPort: number): Promise<number> {
  const reply = await fetch(`http://127.0.0.1:${statsPort}/stats`);
  return ((await reply.json()) as { statusCalls: number }).statusCalls;
}

function procFigures(pid: number): { rssMiB: number; descriptors: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: rssKiB / 1024, descriptors: readdirSync(`/proc/${pid}/fd`).length };
}

interface RunningGateway {
  child: ChildProcess;
  pool: Pool;
  startupMs: number;
  log(): string;
}

async function startGateway(cli: string, fleetFile: string, dir: string): Promise<RunningGateway> {
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

async function timed(
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

const completion = (model: string): string =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 });

const WARM_UP = 50;
/** Steady traffic, not a flood: one request every 10 ms, so a run spans a few refresh periods. */
const PACE_MS = 10;

/**
 * `count` sequential completions cycling over the first few nodes' models, after `WARM_UP`
 * unmeasured ones (the gateway's code is compiled and its first round done before timing).
 */
async function traffic(
  pool: Pool,
  nodes: number,
  count: number,
): Promise<{ ms: number[]; errors: number; seconds: number; from: number }> {
  const ms: number[] = [];
  let errors = 0;
  const models = Math.min(nodes, 4);
  let from = 0;
  for (let index = -WARM_UP; index < count; index += 1) {
    if (index === 0) {
      from = performance.now();
    }
    const result = await timed(
      pool,
      '/v1/chat/completions',
      completion(`model-${(index + WARM_UP) % models}`),
    );
    if (result.status !== 200) {
      errors += 1;
    }
    if (index >= 0) {
      ms.push(result.ms);
    }
    await new Promise((resolve) => setTimeout(resolve, PACE_MS));
  }
  return { ms, errors, seconds: (performance.now() - from) / 1000, from };
}

/** bench/fake-fleet.ts as its own process; it exits when we close its stdin or stop it. */
function startFakeFleet(nodes: number, dir: string): ChildProcess {
  return track(
    spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'fake-fleet.ts'), String(nodes), dir],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    ),
  );
}

/**
 * The hung-node target's comparison, interleaved so the machine's drift hits both alike: a
 * gateway over 1 node and one over 1,000 nodes with a hung node first, both running, one
 * completion to each in turn.
 */
async function measurePaired(cli: string, completions: number): Promise<FleetBench['paired']> {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  try {
    const gateways: RunningGateway[] = [];
    for (const [nodes, file] of [
      [1, 'fleet.yaml'],
      [1_000, 'fleet-hung.yaml'],
    ] as const) {
      const dir = await mkdtemp(join(tmpdir(), 'svc-fleetbench-'));
      dirs.push(dir);
      const fleet = startFakeFleet(nodes, dir);
      children.push(fleet);
      await waitForLine(fleet, /ready (\d+)/);
      const gateway = await startGateway(cli, join(dir, file), dir);
      children.push(gateway.child);
      gateways.push(gateway);
    }
    const [single, hung] = gateways;
    if (single === undefined || hung === undefined) {
      throw new Error('the paired gateways did not start');
    }
    const times: [number[], number[]] = [[], []];
    for (let index = -WARM_UP; index < completions; index += 1) {
      for (const [slot, gateway] of [single, hung].entries()) {
        const result = await timed(gateway.pool, '/v1/chat/completions', completion('model-0'));
        if (result.status !== 200) {
          throw new Error(`paired run: HTTP ${result.status}`);
        }
        if (index >= 0) {
          times[slot]?.push(result.ms);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
    await Promise.all(gateways.map((gateway) => gateway.pool.close()));
    return { single: spread(times[0]), hung: spread(times[1]) };
  } finally {
    for (const child of children.reverse()) {
      await stopChild(child);
    }
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

async function measureSize(
  cli: string,
  nodes: number,
  completions: number,
  idleProbe: boolean,
): Promise<{ figures: FleetFigures; idleStatusPerSecond?: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-fleetbench-'));
  const fleet = startFakeFleet(nodes, dir);
  const children: ChildProcess[] = [fleet];
  try {
    const [, statsText = ''] = await waitForLine(fleet, /ready (\d+)/);
    const statsPort = Number(statsText);
    const warmCount = nodes >= 10_000 ? 20 : 100;

    const gateway = await startGateway(cli, join(dir, 'fleet.yaml'), dir);
    children.push(gateway.child);
    const [modelsCold, fleetCold] = await Promise.all([
      timed(gateway.pool, '/v1/models'),
      timed(gateway.pool, '/v1/fleet'),
    ]);
    const modelsWarm: number[] = [];
    const fleetWarm: number[] = [];
    for (let index = 0; index < warmCount; index += 1) {
      modelsWarm.push((await timed(gateway.pool, '/v1/models')).ms);
      fleetWarm.push((await timed(gateway.pool, '/v1/fleet')).ms);
    }
    const callsBefore = await statusCalls(statsPort);
    const windowStart = performance.now();
    const steady = await traffic(gateway.pool, nodes, completions);
    // Over the whole in-use window, warm-up included: every call the traffic caused.
    const statusPerSecond =
      ((await statusCalls(statsPort)) - callsBefore) / ((performance.now() - windowStart) / 1000);
    const proc = procFigures(gateway.child.pid ?? 0);
    let idleStatusPerSecond: number | undefined;
    if (idleProbe) {
      // Past the 30 s in-use window, then a 10 s count: an idle gateway should ask nothing.
      await new Promise((resolve) => setTimeout(resolve, 32_000));
      const idleBefore = await statusCalls(statsPort);
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      idleStatusPerSecond = ((await statusCalls(statsPort)) - idleBefore) / 10;
    }
    await gateway.pool.close();
    await stopChild(gateway.child);
    let errors = steady.errors + (gateway.log().match(/EMFILE|HTTP 50\d/g) ?? []).length;

    const hung = await startGateway(cli, join(dir, 'fleet-hung.yaml'), dir);
    children.push(hung.child);
    const hungRun = await traffic(hung.pool, nodes, completions);
    errors += hungRun.errors + (hung.log().match(/EMFILE/g) ?? []).length;
    await hung.pool.close();
    await stopChild(hung.child);

    return {
      figures: {
        nodes,
        startupMs: gateway.startupMs,
        modelsCold: modelsCold.ms,
        fleetCold: fleetCold.ms,
        modelsWarm: spread(modelsWarm),
        fleetWarm: spread(fleetWarm),
        routed: spread(steady.ms),
        routedHung: spread(hungRun.ms),
        statusPerSecond,
        rssMiB: proc.rssMiB,
        descriptors: proc.descriptors,
        errors,
      },
      ...(idleStatusPerSecond === undefined ? {} : { idleStatusPerSecond }),
    };
  } finally {
    for (const child of children.reverse()) {
      await stopChild(child);
    }
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchFleet(
  repoRoot: string,
  sizes: readonly number[] = [1, 100, 1_000, 10_000],
  completions = 400,
): Promise<FleetBench> {
  const cli = join(repoRoot, 'dist', 'cli.js');
  const results: FleetFigures[] = [];
  let idle = { rate: Number.NaN, nodes: 0 };
  for (const nodes of sizes) {
    // The idle probe costs 40 s: once, at 1,000 nodes (or the largest size below it).
    const probe = nodes === Math.max(...sizes.filter((size) => size <= 1_000));
    const { figures, idleStatusPerSecond } = await measureSize(cli, nodes, completions, probe);
    results.push(figures);
    if (idleStatusPerSecond !== undefined) {
      idle = { rate: idleStatusPerSecond, nodes };
    }
    process.stdout.write(`fleet ${nodes}: ${JSON.stringify(figures)}\n`);
  }
  const paired = await measurePaired(cli, completions);
  process.stdout.write(`fleet paired: ${JSON.stringify(paired)}\n`);
  return {
    sizes: results,
    paired,
    idleStatusPerSecond: idle.rate,
    idleNodes: idle.nodes,
    completions,
  };
}
