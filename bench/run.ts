/**
 * `npm run bench`: runs each benchmark and rewrites its section of docs/benchmarks.md, between
 * `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, so the page always shows the last run.
 * BENCH_ONLY=startup|sampler|gateway|soak|wake|fleet|scheduler|local|keepcache|names|callers|
 * upstreams runs one section and leaves the others' figures as they are.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { writeTinyModel } from '../test/support/models/tiny-model.ts';
import { benchBodyScanCost, BODY_SCAN_BATCHES } from './body-scan-cost.ts';
import { benchCallers } from './callers/callers.ts';
import { callersReport } from './callers/callers-report.ts';
import { benchFleet, type FleetFigures } from './fleet/fleet.ts';
import { benchGateway } from './gateway.ts';
import { gatewayReport } from './gateway-report.ts';
import { benchKeepCache } from './keepcache/keepcache.ts';
import { KEEP_CACHE_HEADER, keepCacheReport, keepCacheRow } from './keepcache/keepcache-report.ts';
import { benchLocal } from './local.ts';
import { localReport } from './local-report.ts';
import { benchRecordCost } from './metrics-record.ts';
import { benchNames, namesReport } from './names/names.ts';
import { missingTools, onPath } from './prerequisites.ts';
import { benchSamplerCost } from './sampler-cost.ts';
import { benchScheduler, type Build, type SchedulerBench } from './scheduler/scheduler.ts';
import { schedulerReport } from './scheduler/scheduler-report.ts';
import { benchSoak } from './soak.ts';
import { benchStartup } from './startup.ts';
import { svcEnv } from './support.ts';
import { upstreamsSection } from './upstreams/upstreams-section.ts';
import { benchWake } from './wake.ts';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../..');
const page = join(repoRoot, 'docs', 'benchmarks.md');

function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `Node ${process.version}, ${cpus().length} × ${cpu}, ${new Date().toISOString().slice(0, 10)}`;
}

function replaceSection(text: string, name: string, body: string): string {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) {
    throw new Error(`docs/benchmarks.md has no ${open} … ${close} section`);
  }
  return `${text.slice(0, start + open.length)}\n${body}\n${text.slice(end)}`;
}

const ms = (value: number): string => `${value.toFixed(2)} ms`;
const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');

function startupSection(): string {
  const startup = benchStartup(repoRoot);
  return [
    `Measured ${machine()}; median of ${startup.runs} interleaved runs each.`,
    '',
    '| command | median | vs `node -e 0` | target |',
    '|---|---|---|---|',
    `| \`node -e 0\` | ${startup.nodeMedianMs.toFixed(1)} ms | 1.00× | |`,
    `| \`svc --version\` | ${startup.svcMedianMs.toFixed(1)} ms | ${startup.ratio.toFixed(2)}× | ≤ 1.5× (${met(startup.ratio <= 1.5)}) |`,
  ].join('\n');
}

async function samplerSection(model: string): Promise<string> {
  // BENCH_SAMPLER_SECONDS shortens the run while iterating; the recorded figure uses the default.
  const cost = await benchSamplerCost(
    repoRoot,
    Number(process.env['BENCH_SAMPLER_SECONDS'] ?? 240),
    model,
  );
  return [
    `Measured ${machine()}: the daemon supervising an idle llama-server (tiny model) with the default`,
    `15 s sampler tick, over ${cost.seconds} s of steady state; CPU time and RSS of the daemon process from /proc.`,
    '',
    '| figure | measured | target |',
    '|---|---|---|',
    `| daemon CPU, average | ${cost.cpuPercentOfOneCore.toFixed(3)}% of one core | < 0.5% (${met(cost.cpuPercentOfOneCore < 0.5)}) |`,
    `| daemon RSS | ${cost.rssStartMiB.toFixed(1)} MiB → ${cost.rssEndMiB.toFixed(1)} MiB | |`,
  ].join('\n');
}

async function gatewaySection(model: string): Promise<string> {
  const gateway = await benchGateway(
    repoRoot,
    model,
    Number(process.env['BENCH_GATEWAY_SAMPLES'] ?? 400),
    Number(process.env['BENCH_PROMPT_SAMPLES'] ?? 100),
  );
  const record = benchRecordCost();
  const scan = await benchBodyScanCost(undefined);
  const scanUs = (index: number): string => `${(scan[index]?.us['this'] ?? NaN).toFixed(2)} µs`;
  const byName = new Map(gateway.targets.map((target) => [target.name, target]));
  const added = (byName.get('svc gateway')?.p50 ?? NaN) - (byName.get('direct')?.p50 ?? NaN);
  return [
    gatewayReport(gateway, machine()),
    '',
    `The gateway's metrics cost each request one record() call (bench/metrics-record.ts): ${(record.nsPerCall / 1000).toFixed(2)} µs of CPU`,
    `time per call, median of ${record.batches} batches (${record.calls.toLocaleString('en')} calls), ${((record.nsPerCall / 1e6 / added) * 100).toFixed(2)}% of the gateway's added p50 above.`,
    `Reading a body for its model, stream flag and affinity key (bench/body-scan-cost.ts), CPU time per request, least of`,
    `${BODY_SCAN_BATCHES} batches: ${scan.map((cost, index) => `${cost.body} ${scanUs(index)}`).join('; ')}.`,
  ].join('\n');
}

async function soakSection(model: string): Promise<string> {
  const soak = await benchSoak(
    repoRoot,
    model,
    Number(process.env['BENCH_SOAK_REQUESTS'] ?? 10_000),
  );
  const growth = soak.after.rss / soak.before.rss - 1;
  const back = soak.after.fds <= soak.before.fds && soak.after.sockets <= soak.before.sockets;
  return [
    `Measured ${machine()}, load average ${soak.load[0].toFixed(1)} at the start and ${soak.load[1].toFixed(1)} at the end:`,
    `${soak.requests.toLocaleString('en')} streamed requests (max_tokens 8) through the gateway to the real llama-server, ${soak.concurrency} at a time,`,
    'each on its own connection; every fifth caller hangs up after the first event, alternately with a TCP reset and a FIN.',
    `Before = after a warm-up of the same mix in rounds of ${soak.warmUp.round.toLocaleString('en')} until a round moved the RSS by less than 3%`,
    `(RSS ${soak.warmUp.rss.map((rss) => rss.toFixed(1)).join(' → ')} MiB); after = once the run is over and closed connections have left.`,
    '',
    '| figure | before | after | target |',
    '|---|---|---|---|',
    `| gateway descriptors (sockets) | ${soak.before.fds} (${soak.before.sockets}) | ${soak.after.fds} (${soak.after.sockets}) | back to before (${met(back)}) |`,
    `| gateway RSS | ${soak.before.rss.toFixed(1)} MiB | ${soak.after.rss.toFixed(1)} MiB (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%) | < +10% (${met(growth < 0.1)}) |`,
    `| gateway RSS after each fifth of the run | | ${soak.checkpoints.map((rss) => rss.toFixed(1)).join(', ')} MiB | |`,
    `| requests completed / reset / FIN / failed | | ${soak.completed} / ${soak.reset} / ${soak.finished} / ${soak.failed} in ${soak.seconds.toFixed(0)} s | none failed (${met(soak.failed === 0)}) |`,
  ].join('\n');
}

async function wakeSection(model: string): Promise<string> {
  const wake = await benchWake(repoRoot, model, Number(process.env['BENCH_WAKES'] ?? 8));
  const sorted = [...wake.gapsMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  const worst = sorted.at(-1) ?? Number.NaN;
  return [
    `Measured ${machine()}: ${wake.wakes} wakes of a stopped daemon node by a streamed gateway request, default`,
    'sampler interval; the gap from the engine first answering /health (watched every 10 ms) to the first byte',
    'at the gateway. Real llama-server, tiny model; the node is stopped between wakes.',
    '',
    '| figure | measured | target |',
    '|---|---|---|',
    `| wake gap, median | ${ms(median)} | |`,
    `| wake gap, worst of ${wake.wakes} | ${ms(worst)} | ≤ 1000 ms (${met(worst <= 1000)}) |`,
    `| every wake | ${wake.gapsMs.map((gap) => gap.toFixed(0)).join(', ')} ms | |`,
  ].join('\n');
}

async function fleetSection(): Promise<string> {
  // BENCH_FLEET_SIZES=1,100 shortens the run while iterating; the recorded figures use the default.
  const sizes = (process.env['BENCH_FLEET_SIZES'] ?? '1,100,1000,10000').split(',').map(Number);
  const bench = await benchFleet(
    repoRoot,
    sizes,
    Number(process.env['BENCH_FLEET_COMPLETIONS'] ?? 400),
  );
  const at = (nodes: number): FleetFigures | undefined =>
    bench.sizes.find((figures) => figures.nodes === nodes);
  const pair = (value: { p50: number; p99: number }): string =>
    `${ms(value.p50)} / ${ms(value.p99)}`;
  const thousand = at(1_000);
  const tenThousand = at(10_000);
  const hungRatio = bench.paired.hung.p99 / bench.paired.single.p99;
  // node-states.ts: one call per node per 2 s period while in use, at most 200/s fleet-wide in
  // the background, plus the 2 s period of the (up to 4) nodes the traffic is routed to.
  const loadLimit = (nodes: number): number => Math.min(nodes / 2, 200) + 2;
  const loadOk = bench.sizes.every(
    (figures) => figures.statusPerSecond <= loadLimit(figures.nodes),
  );
  return [
    `Measured ${machine()}, load average ${loadavg()[0]?.toFixed(1) ?? '?'} at the end (other work shares this machine). The built gateway under \`ulimit -n 1024\` in front of a simulated fleet in one`,
    'other process (bench/fleet/fake-fleet.ts: fake daemon control APIs on 127.0.0.1 ports) whose nodes point at 4 fake OpenAI',
    'engines in a third process every fleet of the run shares (bench/fleet/fake-engines.ts);',
    `cold = the first call after start-up (one sample); warm = sequential calls after it; routed = ${bench.completions}`,
    'sequential non-streaming completions (one every 10 ms after 50 unmeasured) cycling over 4 models, then the same with a node that accepts and',
    'never answers first in the fleet file. Status/s counts calls answered at the nodes during the traffic.',
    '',
    '| nodes | start-up | /v1/models cold | /v1/fleet cold | /v1/models warm p50 / p99 | /v1/fleet warm p50 / p99 | routed p50 / p99 | routed, one hung node, p50 / p99 | status/s at nodes | RSS | fds | errors |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...bench.sizes.map(
      (figures) =>
        `| ${figures.nodes.toLocaleString('en')} | ${ms(figures.startupMs)} | ${ms(figures.modelsCold)} | ${ms(figures.fleetCold)} | ${pair(figures.modelsWarm)} | ${pair(figures.fleetWarm)} | ${pair(figures.routed)} | ${pair(figures.routedHung)} | ${figures.statusPerSecond.toFixed(0)} | ${figures.rssMiB.toFixed(0)} MiB | ${figures.descriptors} | ${figures.errors} |`,
    ),
    '',
    `Idle (no request for 30 s), ${bench.idleNodes.toLocaleString('en')} nodes: ${bench.idleStatusPerSecond.toFixed(2)} status requests/s at the nodes.`,
    '',
    '| target | measured | verdict |',
    '|---|---|---|',
    `| routed p99 with one hung node in 1,000 nodes ≤ 2× a 1-node fleet's (interleaved, same run) | ${ms(bench.paired.hung.p99)} vs ${ms(bench.paired.single.p99)} (${hungRatio.toFixed(2)}×; p50 ${ms(bench.paired.hung.p50)} vs ${ms(bench.paired.single.p50)}) | ${met(hungRatio <= 2)} |`,
    `| warm \`/v1/models\` p99 at 1,000 nodes < 50 ms | ${ms(thousand?.modelsWarm.p99 ?? NaN)} | ${met((thousand?.modelsWarm.p99 ?? NaN) < 50)} |`,
    `| status load ≤ one request per node per refresh period (2 s; 200/s fleet-wide past 400 nodes) | ${bench.sizes.map((figures) => `${figures.statusPerSecond.toFixed(0)}/s at ${figures.nodes.toLocaleString('en')}`).join(', ')} | ${met(loadOk)} |`,
    `| RSS at 10,000 nodes < 200 MB | ${(tenThousand?.rssMiB ?? NaN).toFixed(0)} MiB | ${met((tenThousand?.rssMiB ?? NaN) < 200)} |`,
    `| idle gateway: no status requests | ${bench.idleStatusPerSecond.toFixed(2)}/s | ${met(bench.idleStatusPerSecond === 0)} |`,
    `| no EMFILE or 5xx, 10,000 nodes under ulimit -n 1024 | ${bench.sizes.reduce((sum, figures) => sum + figures.errors, 0)} errors, at most ${Math.max(...bench.sizes.map((figures) => figures.descriptors))} fds | ${met(bench.sizes.every((figures) => figures.errors === 0))} |`,
  ].join('\n');
}

/** BENCH_SCHEDULER_SCENARIOS=1,2 runs only those while iterating; the recorded figures run all. */
const schedulerScenarios = new Set(
  (process.env['BENCH_SCHEDULER_SCENARIOS'] ?? '1,2,3,4').split(',').map(Number),
);

async function schedulerSection(model: string): Promise<string> {
  // BENCH_GATEWAY_BEFORE=<another build's cli.js> adds that build to scenarios 1 and 2, same run.
  const before = process.env['BENCH_GATEWAY_BEFORE'];
  const builds: Build[] = [{ label: 'this build', cli: join(repoRoot, 'dist', 'cli.js') }];
  if (before !== undefined && before !== '') {
    builds.push({ label: `before (${before})`, cli: before });
  }
  // Each scenario's table as it finishes: a later scenario's failure keeps the earlier figures.
  const finished = (partial: SchedulerBench): void => {
    process.stdout.write(`\n${schedulerReport(partial, machine())}\n`);
  };
  const bench = await benchScheduler(repoRoot, model, builds, schedulerScenarios, finished);
  return schedulerReport(bench, machine());
}

async function localSection(model: string): Promise<string> {
  // BENCH_LOCAL_ROUNDS and BENCH_LOCAL_WRK_SECONDS shorten the run while iterating (the recorded
  // figures use the defaults); BENCH_LOCAL_PAIRS=0 leaves out the two-node paths.
  const bench = await benchLocal(
    repoRoot,
    model,
    Number(process.env['BENCH_LOCAL_ROUNDS'] ?? 400),
    Number(process.env['BENCH_LOCAL_WRK_SECONDS'] ?? 6),
    process.env['BENCH_LOCAL_PAIRS'] !== '0',
  );
  return localReport(bench, machine());
}

async function keepCacheSection(): Promise<string> {
  // BENCH_KEEPCACHE_SIZES=1000 and BENCH_KEEPCACHE_ROUNDS=1 shorten the run while iterating.
  const sizes = (process.env['BENCH_KEEPCACHE_SIZES'] ?? '1000,4000,16000').split(',').map(Number);
  const rounds = Number(process.env['BENCH_KEEPCACHE_ROUNDS'] ?? 3);
  const before = loadavg()[0]?.toFixed(1) ?? '?';
  process.stdout.write(`\n${KEEP_CACHE_HEADER.join('\n')}\n`);
  const bench = await benchKeepCache(repoRoot, sizes, rounds, (size) => {
    process.stdout.write(`${keepCacheRow(size)}\n`);
  });
  const load = `load average ${before} at the start and ${loadavg()[0]?.toFixed(1) ?? '?'} at the end (other work shares this machine)`;
  return keepCacheReport(bench, machine(), load);
}

async function namesSection(model: string): Promise<string> {
  // BENCH_NAMES_ROUNDS shortens the run while iterating (the recorded figures use the default).
  const bench = await benchNames(repoRoot, model, Number(process.env['BENCH_NAMES_ROUNDS'] ?? 300));
  return namesReport(bench, machine());
}

const only = process.env['BENCH_ONLY'];
const runs = (name: string): boolean => only === undefined || only === '' || only === name;
const sections: [string, () => string | Promise<string>][] = [
  ['startup', startupSection],
  ['sampler', () => samplerSection(model)],
  ['gateway', () => gatewaySection(model)],
  ['soak', () => soakSection(model)],
  ['wake', () => wakeSection(model)],
  ['fleet', fleetSection],
  ['scheduler', () => schedulerSection(model)],
  ['local', () => localSection(model)],
  ['keepcache', keepCacheSection],
  ['names', () => namesSection(model)],
  ['callers', async () => callersReport(await benchCallers(repoRoot), machine())],
  ['upstreams', () => upstreamsSection(repoRoot, machine())],
];
// Every section's tools before the first starts (the engine kit's binaries first, as svcEnv).
const missing = missingTools(
  sections.map(([name]) => name).filter(runs),
  schedulerScenarios,
  onPath(svcEnv(repoRoot)['PATH'] ?? ''),
);
/** Runs each section asked for, rewriting its part of the page as soon as it ends. */
async function runSections(): Promise<void> {
  let text = await readFile(page, 'utf8');
  for (const [name, measure] of sections) {
    if (runs(name)) {
      const body = await measure();
      process.stdout.write(`\n## ${name}\n${body}\n`);
      text = replaceSection(text, name, body);
      await writeFile(page, text);
    }
  }
}

let model = '';
if (missing.length > 0) {
  process.stderr.write(
    `npm run bench: missing prerequisites, nothing was run:\n  ${missing.join('\n  ')}\n`,
  );
  process.exitCode = 1;
} else {
  model = await writeTinyModel(join(repoRoot, '.cache', 'bench', 'tiny.gguf'));
  await runSections();
}
