/**
 * `npm run bench`: runs each benchmark and rewrites its section of docs/benchmarks.md, between
 * `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, so the page always shows the last run.
 * BENCH_ONLY=startup|sampler|gateway|wake runs one section and leaves the others' figures as they are.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { writeTinyModel } from '../test/support/tiny-model.ts';
import { benchGateway } from './gateway.ts';
import { benchSamplerCost } from './sampler-cost.ts';
import { benchStartup } from './startup.ts';
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
  );
  const byName = new Map(gateway.targets.map((target) => [target.name, target]));
  const direct = byName.get('direct');
  const naive = byName.get('naive Node proxy');
  const svc = byName.get('svc gateway');
  const added = (target: { p50: number } | undefined): number =>
    (target?.p50 ?? NaN) - (direct?.p50 ?? NaN);
  const addedTtfb = (target: { ttfbP50: number } | undefined): number =>
    (target?.ttfbP50 ?? NaN) - (direct?.ttfbP50 ?? NaN);
  const ratio = added(svc) / added(naive);
  const throughput = (svc?.rps ?? NaN) / (direct?.rps ?? NaN);
  const ttfbGap = addedTtfb(svc) - addedTtfb(naive);
  return [
    `Measured ${machine()}; ${gateway.samples} interleaved rounds of one non-streaming request (max_tokens 1) and one`,
    'streamed request per target, after a warm-up; throughput with wrk at concurrency 16 (two 6 s passes, averaged).',
    'The same llama-server (tiny model, `--threads-http 32 -lv 1 --threads 1`) behind every path.',
    '',
    '| path | p50 | p99 | added p50 | TTFB p50 (stream) | added TTFB | req/s @16 |',
    '|---|---|---|---|---|---|---|',
    ...gateway.targets.map(
      (target) =>
        `| ${target.name} | ${ms(target.p50)} | ${ms(target.p99)} | ${target.name === 'direct' ? '—' : `+${ms(added(target))}`} | ${ms(target.ttfbP50)} | ${target.name === 'direct' ? '—' : `+${ms(addedTtfb(target))}`} | ${(target.rps ?? NaN).toFixed(0)} |`,
    ),
    '',
    '| target | measured | verdict |',
    '|---|---|---|',
    `| gateway added p50 ≤ 1.2× naive proxy's | ${ratio.toFixed(2)}× (+${ms(added(svc))} vs +${ms(added(naive))}) | ${met(ratio <= 1.2)} |`,
    `| gateway throughput ≥ 65% of direct | ${(throughput * 100).toFixed(0)}% | ${met(throughput >= 0.65)} |`,
    `| added streamed TTFB within 0.5 ms of naive | ${ttfbGap >= 0 ? '+' : ''}${ms(ttfbGap)} | ${met(ttfbGap <= 0.5)} |`,
    `| gateway RSS < 120 MB | ${gateway.gatewayRssMiB.toFixed(1)} MiB | ${met(gateway.gatewayRssMiB < 120)} |`,
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

const only = process.env['BENCH_ONLY'];
const runs = (name: string): boolean => only === undefined || only === '' || only === name;
const model = await writeTinyModel(join(repoRoot, '.cache', 'bench', 'tiny.gguf'));
let text = await readFile(page, 'utf8');
const sections: [string, () => string | Promise<string>][] = [
  ['startup', startupSection],
  ['sampler', () => samplerSection(model)],
  ['gateway', () => gatewaySection(model)],
  ['wake', () => wakeSection(model)],
];
for (const [name, measure] of sections) {
  if (runs(name)) {
    const body = await measure();
    process.stdout.write(`\n## ${name}\n${body}\n`);
    text = replaceSection(text, name, body);
    await writeFile(page, text);
  }
}
