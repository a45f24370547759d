/**
 * Fleet scale (docs/benchmarks.md#fleet-scale): the built gateway in front of a simulated fleet
 * (bench/fleet/fake-fleet.ts, its own process) of 1, 100, 1,000 and 10,000 fake daemons whose nodes
 * point at a few fake OpenAI engines (bench/fleet/fake-engines.ts, one process every fleet of the run
 * shares), the gateway under `ulimit -n 1024`. Per size: start-up to the listening line;
 * `/v1/models` and `/v1/fleet` cold (the first call after start-up) and warm; routed completions
 * under steady sequential traffic, then the same with one hung node first in the file; status
 * requests per second at the nodes while traffic flows (and, once, while idle); gateway RSS and
 * descriptors. Request counts are fixed and every process is stopped by PID when done.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Pool } from 'undici';

import { waitForLine } from '../support.ts';
import { measurePaired } from './fleet-paired.ts';
import {
  completion,
  PACE_MS,
  procFigures,
  type Spread,
  spread,
  startFakeEngines,
  startFakeFleet,
  startGateway,
  statusCalls,
  stopChild,
  timed,
  WARM_UP,
} from './fleet-processes.ts';

export interface FleetFigures {
  nodes: number;
  startupMs: number;
  modelsCold: number;
  fleetCold: number;
  modelsWarm: Spread;
  fleetWarm: Spread;
  routed: Spread;
  routedHung: Spread;
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
  paired: { single: Spread; hung: Spread };
  idleStatusPerSecond: number;
  idleNodes: number;
  completions: number;
}

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

async function measureSize(
  cli: string,
  nodes: number,
  completions: number,
  idleProbe: boolean,
  engines: string,
): Promise<{ figures: FleetFigures; idleStatusPerSecond?: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-fleetbench-'));
  const fleet = startFakeFleet(nodes, dir, engines);
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
  const engines = await startFakeEngines();
  try {
    for (const nodes of sizes) {
      // The idle probe costs 40 s: once, at 1,000 nodes (or the largest size below it).
      const probe = nodes === Math.max(...sizes.filter((size) => size <= 1_000));
      const { figures, idleStatusPerSecond } = await measureSize(
        cli,
        nodes,
        completions,
        probe,
        engines.ports,
      );
      results.push(figures);
      if (idleStatusPerSecond !== undefined) {
        idle = { rate: idleStatusPerSecond, nodes };
      }
      process.stdout.write(`fleet ${nodes}: ${JSON.stringify(figures)}\n`);
    }
    const paired = await measurePaired(cli, completions, engines.ports);
    process.stdout.write(`fleet paired: ${JSON.stringify(paired)}\n`);
    return {
      sizes: results,
      paired,
      idleStatusPerSecond: idle.rate,
      idleNodes: idle.nodes,
      completions,
    };
  } finally {
    await stopChild(engines.child);
  }
}
