/**
 * What the gateway adds to a request, measured in one run against the same real llama-server on
 * 127.0.0.1 (bench/gateway-paths.ts): direct, nginx as the reference proxy, a naive Node proxy as
 * the Node floor, and the gateway in front of a daemon. Targets are interleaved so drift on the
 * machine hits all alike; CPU time per request and peak memory come from /proc.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import { Pool } from 'undici';

import { type PathTarget, startBenchPaths } from './gateway-paths.ts';
import { cpuTimeMs, memoryMiB } from './proc-stats.ts';

export interface TargetFigures {
  name: string;
  p50: number;
  p99: number;
  ttfbP50: number;
  rps: number;
  /** Process CPU time per request under wrk, in ms (undefined for direct). */
  cpuPerRequestMs?: number;
  peakRssMiB?: number;
  /** RSS once started, before any request: what the process costs before its load does. */
  idleRssMiB?: number;
  /** p50 of a request carrying a 1 KB and a 1 MB prompt. */
  kbP50: number;
  mbP50: number;
}

export interface GatewayBench {
  targets: TargetFigures[];
  samples: number;
  promptSamples: number;
  /** Load average (1 min) at the start and the end of the run: other work shares the machine. */
  load: [number, number];
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function chat(extra: Record<string, unknown>, content = 'hi'): string {
  return JSON.stringify({
    model: 'tiny',
    messages: [{ role: 'user', content }],
    max_tokens: 1,
    ...extra,
  });
}

const BODY = chat({});
const STREAM_BODY = chat({ max_tokens: 4, stream: true });
/**
 * The prompt-size pair: the same request with 1 KB and with 1 MB of text the engine must receive
 * and parse. The text rides in a field llama-server ignores, so what differs between the two is
 * what each proxy does with the bytes, not the engine's tokenizer (which would swamp it).
 */
const KB_BODY = chat({ user: 'x'.repeat(1024) });
const MB_BODY = chat({ user: 'lorem ipsum dolor sit amet, '.repeat(37_450) });

export async function timeOne(
  pool: Pool,
  body: string,
  streaming: boolean,
): Promise<{ total: number; ttfb: number }> {
  const started = performance.now();
  const reply = await pool.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    reset: streaming,
  });
  let ttfb = 0;
  for await (const chunk of reply.body) {
    if (ttfb === 0 && (chunk as Buffer).length > 0) {
      ttfb = performance.now() - started;
    }
  }
  if (reply.statusCode !== 200) {
    throw new Error(`HTTP ${reply.statusCode}`);
  }
  return { total: performance.now() - started, ttfb };
}

/** wrk at concurrency 16; the proxy's CPU time over the pass, per request it completed. */
export async function wrk(
  target: Pick<PathTarget, 'url' | 'pid'>,
  seconds: number,
  luaPath: string,
): Promise<{ rps: number; cpuMs: number; requests: number }> {
  const cpuBefore = target.pid === 0 ? 0 : await cpuTimeMs(target.pid);
  const output = execFileSync(
    'wrk',
    ['-t2', '-c16', `-d${seconds}s`, '-s', luaPath, `${target.url}/v1/chat/completions`],
    { encoding: 'utf8' },
  );
  const cpuMs = target.pid === 0 ? 0 : (await cpuTimeMs(target.pid)) - cpuBefore;
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? Number.NaN),
    requests: Number(/(\d+) requests in/.exec(output)?.[1] ?? Number.NaN),
    cpuMs,
  };
}

/** Each round visits every target, in an order that rotates, so drift hits all alike. */
export async function interleave<Target>(
  targets: readonly Target[],
  rounds: number,
  visit: (target: Target, round: number) => Promise<void>,
): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    for (let index = 0; index < targets.length; index += 1) {
      await visit(targets[(index + round) % targets.length] as Target, round);
    }
  }
}

export async function benchGateway(
  repoRoot: string,
  model: string,
  samples = 400,
  promptSamples = 100,
): Promise<GatewayBench> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const paths = await startBenchPaths(repoRoot, model);
  try {
    const { targets } = paths;
    const idle = new Map<string, number>();
    for (const target of targets) {
      if (target.pid !== 0) {
        idle.set(target.name, (await memoryMiB(target.pid)).rss);
      }
    }
    const pools = new Map(
      targets.map((target) => [
        target.name,
        new Pool(target.url, { connections: 1, keepAliveTimeout: 4_000 }),
      ]),
    );
    const pool = (target: PathTarget): Pool => pools.get(target.name) as Pool;
    const series = (): Map<string, number[]> =>
      new Map(targets.map((target) => [target.name, [] as number[]]));
    const totals = series();
    const ttfbs = series();
    const kb = series();
    const mb = series();

    await interleave(targets, 50, async (target, round) => {
      await timeOne(pool(target), round % 2 === 0 ? BODY : STREAM_BODY, round % 2 === 1);
    });
    await interleave(targets, samples, async (target) => {
      totals.get(target.name)?.push((await timeOne(pool(target), BODY, false)).total);
      ttfbs.get(target.name)?.push((await timeOne(pool(target), STREAM_BODY, true)).ttfb);
    });
    await interleave(targets, promptSamples, async (target) => {
      kb.get(target.name)?.push((await timeOne(pool(target), KB_BODY, false)).total);
      mb.get(target.name)?.push((await timeOne(pool(target), MB_BODY, false)).total);
    });
    await Promise.all([...pools.values()].map((each) => each.close()));

    const lua = join(paths.work, 'post.lua');
    await writeFile(
      lua,
      `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = '${BODY}'\n`,
    );
    const passes = new Map<string, { rps: number; cpuMs: number; requests: number }[]>();
    for (let pass = 0; pass < 2; pass += 1) {
      for (const target of pass === 0 ? targets : [...targets].reverse()) {
        passes.set(target.name, [...(passes.get(target.name) ?? []), await wrk(target, 6, lua)]);
      }
    }
    const figures: TargetFigures[] = [];
    for (const target of targets) {
      const runs = passes.get(target.name) ?? [];
      const requests = runs.reduce((sum, run) => sum + run.requests, 0);
      const cpuMs = runs.reduce((sum, run) => sum + run.cpuMs, 0);
      const memory = target.pid === 0 ? undefined : await memoryMiB(target.pid);
      figures.push({
        name: target.name,
        p50: percentile(totals.get(target.name) ?? [], 50),
        p99: percentile(totals.get(target.name) ?? [], 99),
        ttfbP50: percentile(ttfbs.get(target.name) ?? [], 50),
        rps: runs.reduce((sum, run) => sum + run.rps, 0) / Math.max(1, runs.length),
        kbP50: percentile(kb.get(target.name) ?? [], 50),
        mbP50: percentile(mb.get(target.name) ?? [], 50),
        ...(target.pid === 0 ? {} : { cpuPerRequestMs: cpuMs / requests }),
        ...(memory === undefined ? {} : { peakRssMiB: memory.peak }),
        ...(idle.has(target.name) ? { idleRssMiB: idle.get(target.name) ?? NaN } : {}),
      });
    }
    return { samples, promptSamples, targets: figures, load: [loadAtStart, loadavg()[0] ?? NaN] };
  } finally {
    await paths.close();
  }
}
