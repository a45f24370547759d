/**
 * The scheduler benchmark (docs/benchmarks.md "Scheduler"; docs/design.md D25, D26): four
 * scenarios, each against built gateways over real `svc daemon` nodes on 127.0.0.1. 1: makespan of
 * 64 requests at concurrency 8 over two fake nodes of 2 slots (200 ms each); 2: a burst of 40 at
 * one fake node of 2 slots with `queue: {max: 16}`, counted by reply; 3: the share of prompt tokens
 * llama-server serves from its cache for 8 agent-like sessions, `affinity: on` and `off`; 4: a swap
 * in a group of one, time to first byte for model B while A runs, beside the engines' own stop and
 * start-to-ready measured through the daemon API. Scenarios 1 and 2 also run the build named by
 * BENCH_GATEWAY_BEFORE. A fleet file the build refuses is reported with its refusal, then run
 * without the refused keys (today's routing), so the figures say what that build does.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from '../support.ts';
import {
  allServing,
  type Build,
  gatewayFor,
  type Run,
  startNode,
  stopChild,
} from './scheduler-fleet.ts';
import { type Burst, burst, closeLoad, makespan } from './scheduler-load.ts';
import {
  type AffinityRun,
  scenarioAffinity,
  scenarioSwap,
  type SwapRun,
} from './scheduler-real.ts';

export type { Build };
export type { AffinityRun, SwapRound, SwapRun } from './scheduler-real.ts';

export interface MakespanRun extends Run {
  readonly ms: number;
  readonly statuses: Readonly<Record<string, number>>;
  readonly perNode: Readonly<Record<string, number>>;
}

export interface BurstRun extends Run {
  readonly burst: Burst;
  readonly holdMs: number;
}

export interface SchedulerBench {
  readonly builds: readonly string[];
  readonly makespan: readonly MakespanRun[];
  readonly burst: readonly BurstRun[];
  readonly affinity: readonly AffinityRun[];
  readonly swap: SwapRun | undefined;
  readonly load: readonly [number, number];
}

const fakeSvcfile = async (slots: number): Promise<string> =>
  `PROVIDER llamacpp\nMODEL org/fake\nALIAS fake\nPARALLEL ${slots}\nBASEURL 127.0.0.1:${await freePort()}\n`;

async function scenarioMakespan(
  repoRoot: string,
  work: string,
  builds: readonly Build[],
): Promise<MakespanRun[]> {
  const nodes = [
    await startNode(repoRoot, work, 's1-a', 'slots:2,hold:200'),
    await startNode(repoRoot, work, 's1-b', 'slots:2,hold:200'),
  ];
  const runs: MakespanRun[] = [];
  try {
    for (const node of nodes) {
      await writeFile(join(work, `${node.name}.svc`), await fakeSvcfile(2));
    }
    for (const build of builds) {
      const gateway = await gatewayFor(repoRoot, build, work, `s1-${runs.length}`, nodes, []);
      try {
        const byPort = await allServing(gateway.url, nodes);
        await makespan(gateway.url, 'fake', 8, 8); // warm-up: connections, JIT
        const result = await makespan(gateway.url, 'fake', 64, 8);
        const perNode = Object.fromEntries(
          Object.entries(result.byPort).map(([port, count]) => [
            byPort.get(Number(port)) ?? port,
            count,
          ]),
        );
        runs.push({ build: build.label, ms: result.ms, statuses: result.statuses, perNode });
      } finally {
        await stopChild(gateway.child);
      }
    }
  } finally {
    for (const node of nodes) {
      await stopChild(node.child);
    }
  }
  return runs;
}

export const BURST_HOLD_MS = 1_500;

async function scenarioBurst(
  repoRoot: string,
  work: string,
  builds: readonly Build[],
): Promise<BurstRun[]> {
  const node = await startNode(repoRoot, work, 's2', `slots:2,hold:${BURST_HOLD_MS}`);
  const runs: BurstRun[] = [];
  try {
    await writeFile(join(work, 's2.svc'), await fakeSvcfile(2));
    for (const build of builds) {
      const gateway = await gatewayFor(
        repoRoot,
        build,
        work,
        `s2-${runs.length}`,
        [node],
        ['queue: {max: 16}'],
      );
      try {
        await allServing(gateway.url, [node]);
        const result = await burst(gateway.url, 'fake', 40);
        runs.push({
          build: build.label,
          burst: result,
          holdMs: BURST_HOLD_MS,
          ...(gateway.refusal === undefined ? {} : { refusal: gateway.refusal }),
        });
      } finally {
        await stopChild(gateway.child);
      }
    }
  } finally {
    await stopChild(node.child);
  }
  return runs;
}

/**
 * BENCH_SCHEDULER_SCENARIOS=1,2 runs only those scenarios (all four by default). `finished` hears
 * each scenario's figures alone as soon as it ends, so a later one's failure loses none of them.
 */
export async function benchScheduler(
  repoRoot: string,
  model: string,
  builds: readonly Build[],
  scenarios: ReadonlySet<number>,
  finished: (scenario: SchedulerBench) => void = () => undefined,
): Promise<SchedulerBench> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const work = await mkdtemp(join(tmpdir(), 'svc-schedbench-'));
  const current = builds[0] as Build;
  const none: SchedulerBench = {
    builds: builds.map((build) => build.label),
    makespan: [],
    burst: [],
    affinity: [],
    swap: undefined,
    load: [loadAtStart, loadAtStart],
  };
  const scenario = async <K extends 'makespan' | 'burst' | 'affinity' | 'swap'>(
    number: number,
    key: K,
    run: () => Promise<SchedulerBench[K]>,
  ): Promise<SchedulerBench[K]> => {
    if (!scenarios.has(number)) {
      return none[key];
    }
    const figures = await run();
    finished({ ...none, [key]: figures, load: [loadAtStart, loadavg()[0] ?? Number.NaN] });
    return figures;
  };
  try {
    return {
      builds: none.builds,
      makespan: await scenario(1, 'makespan', () => scenarioMakespan(repoRoot, work, builds)),
      burst: await scenario(2, 'burst', () => scenarioBurst(repoRoot, work, builds)),
      affinity: await scenario(3, 'affinity', () =>
        scenarioAffinity(repoRoot, work, current, model),
      ),
      swap: await scenario(4, 'swap', () => scenarioSwap(repoRoot, work, current, 3)),
      load: [loadAtStart, loadavg()[0] ?? Number.NaN],
    };
  } finally {
    await closeLoad();
    await rm(work, { recursive: true, force: true });
  }
}
