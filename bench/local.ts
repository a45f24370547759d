/**
 * What a local node costs the gateway on the request path against a daemon node, measured in one
 * run (bench/local-paths.ts) with the gateway section's own measuring code (bench/gateway.ts):
 * the same interleaved rounds of a non-streamed and a streamed chat request per path, then wrk
 * passes for the gateway's CPU time per request. A local node puts its engine's supervision in
 * the gateway process (docs/design.md D27), so the daemon's CPU time and memory are read beside the
 * gateway's for a daemon node.
 */
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import { Pool } from 'undici';

import { chat, interleave, percentile, timeOne, wrk } from './gateway.ts';
import { type LocalTarget, startLocalPaths } from './local-paths.ts';
import { cpuTimeMs, memoryMiB } from './proc-stats.ts';

export interface LocalFigures {
  readonly name: string;
  readonly kind: LocalTarget['kind'];
  readonly nodes: number;
  readonly p50: number;
  readonly p99: number;
  readonly ttfbP50: number;
  readonly rps: number;
  /** The gateway's (and its daemons') CPU time per request under wrk, in ms; not for direct. */
  readonly cpuPerRequestMs?: number;
  readonly daemonCpuPerRequestMs?: number;
  /** VmRSS once every engine ran, before any request; VmHWM at the end. Daemons summed. */
  readonly rss?: { idle: number; peak: number };
  readonly daemonRss?: { idle: number; peak: number };
}

export interface LocalBench {
  readonly targets: readonly LocalFigures[];
  readonly rounds: number;
  readonly wrkSeconds: number;
  /** Load average (1 min) at the start and the end of the run: other work shares the machine. */
  readonly load: [number, number];
}

async function summed(pids: readonly number[], read: (pid: number) => Promise<number>) {
  let total = 0;
  for (const pid of pids) {
    total += await read(pid);
  }
  return total;
}

/** The daemons' and the gateway's CPU time over one wrk pass, with the requests it completed. */
async function wrkPass(target: LocalTarget, seconds: number, lua: string) {
  const daemonBefore = await summed(target.daemonPids, cpuTimeMs);
  const pass = await wrk(target, seconds, lua);
  return { ...pass, daemonCpuMs: (await summed(target.daemonPids, cpuTimeMs)) - daemonBefore };
}

export async function benchLocal(
  repoRoot: string,
  model: string,
  rounds: number,
  wrkSeconds: number,
  pairs: boolean,
): Promise<LocalBench> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const paths = await startLocalPaths(repoRoot, model, pairs);
  try {
    const { targets } = paths;
    const rssNow = async (pids: readonly number[]) =>
      summed(pids, async (pid) => (await memoryMiB(pid)).rss);
    const idle = new Map<string, { gateway: number; daemons: number }>();
    for (const target of targets) {
      idle.set(target.name, {
        gateway: target.pid === 0 ? NaN : await rssNow([target.pid]),
        daemons: await rssNow(target.daemonPids),
      });
    }
    const pools = new Map(
      targets.map((target) => [
        target.name,
        new Pool(target.url, { connections: 1, keepAliveTimeout: 4_000 }),
      ]),
    );
    const pool = (target: LocalTarget): Pool => pools.get(target.name) as Pool;
    // A path over two nodes alternates between their models, round by round.
    const modelOf = (target: LocalTarget, round: number): string =>
      target.models[round % target.models.length] ?? 'tiny';
    const plain = (target: LocalTarget, round: number): string =>
      chat({ model: modelOf(target, round) });
    const streamed = (target: LocalTarget, round: number): string =>
      chat({ model: modelOf(target, round), max_tokens: 4, stream: true });
    const totals = new Map(targets.map((target) => [target.name, [] as number[]]));
    const ttfbs = new Map(targets.map((target) => [target.name, [] as number[]]));

    await interleave(targets, 50, async (target, round) => {
      await timeOne(pool(target), plain(target, round), false);
      await timeOne(pool(target), streamed(target, round), true);
    });
    await interleave(targets, rounds, async (target, round) => {
      totals
        .get(target.name)
        ?.push((await timeOne(pool(target), plain(target, round), false)).total);
      ttfbs
        .get(target.name)
        ?.push((await timeOne(pool(target), streamed(target, round), true)).ttfb);
    });
    await Promise.all([...pools.values()].map((each) => each.close()));

    // wrk sends one body: the first model, on a path over two nodes too.
    const lua = join(paths.work, 'post.lua');
    await writeFile(
      lua,
      `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = '${chat({})}'\n`,
    );
    const passes = new Map<string, Awaited<ReturnType<typeof wrkPass>>[]>();
    for (let pass = 0; pass < 2; pass += 1) {
      for (const target of pass === 0 ? targets : [...targets].reverse()) {
        const done = await wrkPass(target, wrkSeconds, lua);
        passes.set(target.name, [...(passes.get(target.name) ?? []), done]);
      }
    }

    const figures: LocalFigures[] = [];
    for (const target of targets) {
      const runs = passes.get(target.name) ?? [];
      const requests = runs.reduce((sum, run) => sum + run.requests, 0);
      const at = idle.get(target.name);
      const peak = async (pids: readonly number[]) =>
        summed(pids, async (pid) => (await memoryMiB(pid)).peak);
      figures.push({
        name: target.name,
        kind: target.kind,
        nodes: target.models.length,
        p50: percentile(totals.get(target.name) ?? [], 50),
        p99: percentile(totals.get(target.name) ?? [], 99),
        ttfbP50: percentile(ttfbs.get(target.name) ?? [], 50),
        rps: runs.reduce((sum, run) => sum + run.rps, 0) / Math.max(1, runs.length),
        ...(target.pid === 0
          ? {}
          : {
              cpuPerRequestMs: runs.reduce((sum, run) => sum + run.cpuMs, 0) / requests,
              rss: { idle: at?.gateway ?? NaN, peak: await peak([target.pid]) },
            }),
        ...(target.daemonPids.length === 0
          ? {}
          : {
              daemonCpuPerRequestMs: runs.reduce((sum, run) => sum + run.daemonCpuMs, 0) / requests,
              daemonRss: { idle: at?.daemons ?? NaN, peak: await peak(target.daemonPids) },
            }),
      });
    }
    return { targets: figures, rounds, wrkSeconds, load: [loadAtStart, loadavg()[0] ?? NaN] };
  } finally {
    await paths.close();
  }
}
