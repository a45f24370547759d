/**
 * What the scheduler costs one request, alone: what the gateway's loop (src/gateway/scheduling/
 * schedule-loop.ts) asks of it per request, a step for its arrival and one for its end, each
 * followed by the next deadline, on a fixed clock. Fleets
 * of 10 to 10,000 nodes, every one running and ready with 4 slots and a steady 1 request of ours
 * in flight per 10 nodes, requests carrying one of 1,000 affinity keys:
 * - `one model`: every node serves the same model (placement weighs them all);
 * - `100 models`: 100 nodes per model;
 * - `idle stop`: one model, and every node under idle stop (the deadline scan reads them all).
 * CPU time per request, the least of several batches (on a shared machine a batch can only be
 * slowed by other work). `npx tsx bench/scheduler/scheduler-cost.ts`; with
 * `BENCH_BEFORE_SRC=<another checkout>/src` that checkout's scheduler is timed too, in the same
 * run, batch by batch.
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { Scheduler } from '../../src/core/fleet/scheduling/scheduler.ts';
import type { schedulerSettings } from '../../src/core/fleet/scheduling/settings.ts';
import type { NodeView } from '../../src/core/fleet/scheduling/types.ts';

/** The two modules the bench drives, from this checkout or another. */
interface Build {
  readonly Scheduler: typeof Scheduler;
  readonly schedulerSettings: typeof schedulerSettings;
}

async function buildAt(src: string): Promise<Build> {
  const load = (path: string): Promise<Record<string, unknown>> =>
    import(pathToFileURL(resolve(src, path)).href) as Promise<Record<string, unknown>>;
  const [scheduler, settings] = await Promise.all([
    load('core/fleet/scheduling/scheduler.ts'),
    load('core/fleet/scheduling/settings.ts'),
  ]);
  return { ...scheduler, ...settings } as unknown as Build;
}

export interface SchedulerCost {
  readonly fleet: string;
  readonly nodes: number;
  /** Microseconds of CPU time per request (admit and end), the least batch, per build. */
  readonly us: Readonly<Record<string, number>>;
}

type Shape = 'one model' | '100 models' | 'idle stop';

const NOW = 1_000_000;

/** What the gateway's loop does with a request, without its promises: two steps, two deadlines. */
class Loop {
  private nextId = 1;

  constructor(private readonly scheduler: Scheduler) {}

  admit(request: { model: string; streaming: boolean; affinity: string }): number {
    const id = this.nextId;
    this.nextId += 1;
    this.scheduler.step({ kind: 'arrive', request: { ...request, id } }, NOW);
    this.scheduler.nextDueAt(NOW);
    return id;
  }

  end(id: number): void {
    this.scheduler.step({ kind: 'end', id }, NOW);
    this.scheduler.nextDueAt(NOW);
  }
}

function loopFor(build: Build, nodes: number, shape: Shape): { loop: Loop; models: string[] } {
  const modelOf = (index: number): string =>
    shape === '100 models' ? `model-${index % 100}` : 'model-0';
  const names = Array.from({ length: nodes }, (_, index) => `node-${index}`);
  const scheduler = new build.Scheduler(
    build.schedulerSettings({
      nodes: names.map((name) => ({
        name,
        ...(shape === 'idle stop' ? { idleStopMs: 600_000 } : {}),
      })),
    }),
  );
  const now = NOW;
  const views: NodeView[] = names.map((name, index) => ({
    name,
    observedAt: now,
    state: 'running',
    ready: true,
    serves: [modelOf(index)],
    slots: 4,
    busy: 0,
    lastActiveAt: now - index,
    runningSince: 0,
  }));
  scheduler.step({ kind: 'views', views }, now);
  const loop = new Loop(scheduler);
  const models = [...new Set(views.map((view) => view.serves[0] ?? ''))];
  return { loop, models };
}

function batchUs(loop: Loop, models: string[], requests: number, inFlight: number[]): number {
  const started = process.cpuUsage();
  for (let request = 0; request < requests; request += 1) {
    const model = models[request % models.length] ?? '';
    const id = loop.admit({ model, streaming: false, affinity: `key-${request % 1_000}` });
    // A steady load: each request ends when the one `inFlight.length` admissions later arrives.
    const slot = request % inFlight.length;
    const ending = inFlight[slot];
    if (ending !== undefined) {
      loop.end(ending);
    }
    inFlight[slot] = id;
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / requests;
}

export async function benchSchedulerCost(
  before: string | undefined = process.env['BENCH_BEFORE_SRC'],
  batches = 9,
): Promise<SchedulerCost[]> {
  const builds: [string, Build][] = [
    ['this', await buildAt(resolve(import.meta.dirname, '../../src'))],
  ];
  if (before !== undefined && before !== '') {
    builds.push(['before', await buildAt(before)]);
  }
  const costs: SchedulerCost[] = [];
  for (const shape of ['one model', '100 models', 'idle stop'] as const) {
    for (const nodes of [10, 1_000, 10_000]) {
      const runs = builds.map(([name, build]) => {
        const { loop, models } = loopFor(build, nodes, shape);
        const inFlight: number[] = new Array<number>(Math.max(1, nodes / 10)).fill(0);
        return { name, loop, models, inFlight };
      });
      const requests = Math.max(200, Math.round(2_000_000 / nodes));
      const least: Record<string, number> = {};
      for (const run of runs) {
        batchUs(run.loop, run.models, requests, run.inFlight); // warm-up: compiled, then timed
        least[run.name] = Number.POSITIVE_INFINITY;
      }
      for (let batch = 0; batch < batches; batch += 1) {
        for (const run of batch % 2 === 0 ? runs : [...runs].reverse()) {
          const us = batchUs(run.loop, run.models, requests, run.inFlight);
          least[run.name] = Math.min(least[run.name] ?? Number.POSITIVE_INFINITY, us);
        }
      }
      costs.push({ fleet: shape, nodes, us: least });
    }
  }
  return costs;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const start = loadavg()[0] ?? 0;
  for (const cost of await benchSchedulerCost()) {
    const builds = Object.entries(cost.us).map(([build, us]) => `${build} ${us.toFixed(2)} µs`);
    process.stdout.write(`${cost.fleet}, ${cost.nodes} nodes: ${builds.join(', ')}\n`);
  }
  process.stdout.write(`load average ${start.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}\n`);
}
