/** The gateway section of docs/benchmarks.md from one run's figures (bench/gateway.ts). */
import type { GatewayBench, TargetFigures } from './gateway.ts';

const ms = (value: number): string => `${value.toFixed(2)} ms`;
const signed = (value: number): string => `${value >= 0 ? '+' : '−'}${ms(Math.abs(value))}`;
const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');

export function gatewayReport(bench: GatewayBench, machine: string): string {
  const byName = new Map(bench.targets.map((target) => [target.name, target]));
  const direct = byName.get('direct');
  const nginx = byName.get('nginx');
  const naive = byName.get('naive Node proxy');
  const svc = byName.get('svc gateway');
  const added = (target: TargetFigures | undefined): number =>
    (target?.p50 ?? NaN) - (direct?.p50 ?? NaN);
  const addedTtfb = (target: TargetFigures | undefined): number =>
    (target?.ttfbP50 ?? NaN) - (direct?.ttfbP50 ?? NaN);
  const addedKb = (target: TargetFigures | undefined): number =>
    (target?.kbP50 ?? NaN) - (direct?.kbP50 ?? NaN);
  const addedMb = (target: TargetFigures | undefined): number =>
    (target?.mbP50 ?? NaN) - (direct?.mbP50 ?? NaN);
  const vsNaive = added(svc) / added(naive);
  const vsNginx = added(svc) / added(nginx);
  const throughput = (svc?.rps ?? NaN) / (direct?.rps ?? NaN);
  const ttfbOver = addedTtfb(svc) - addedTtfb(nginx);
  const cpuRatio = (svc?.cpuPerRequestMs ?? NaN) / (naive?.cpuPerRequestMs ?? NaN);
  const peak = svc?.peakRssMiB ?? NaN;
  const promptRatio = addedMb(svc) / addedKb(svc);
  const row = (target: TargetFigures): string => {
    const isDirect = target.name === 'direct';
    return [
      target.name,
      ms(target.p50),
      ms(target.p99),
      isDirect ? '—' : signed(added(target)),
      ms(target.ttfbP50),
      isDirect ? '—' : signed(addedTtfb(target)),
      target.rps.toFixed(0),
      target.cpuPerRequestMs === undefined
        ? '—'
        : `${(target.cpuPerRequestMs * 1000).toFixed(0)} µs`,
      target.peakRssMiB === undefined
        ? '—'
        : `${(target.idleRssMiB ?? NaN).toFixed(1)} / ${target.peakRssMiB.toFixed(1)} MiB`,
      isDirect ? ms(target.kbP50) : signed(addedKb(target)),
      isDirect ? ms(target.mbP50) : signed(addedMb(target)),
    ].join(' | ');
  };
  return [
    `Measured ${machine}, load average ${bench.load[0].toFixed(1)} at the start and ${bench.load[1].toFixed(1)} at the end (other work shares this machine);`,
    `${bench.samples} interleaved rounds of one non-streaming request (max_tokens 1) and one streamed request per target, after a warm-up;`,
    `${bench.promptSamples} interleaved rounds of a 1 KB and a 1 MB request; throughput with wrk at concurrency 16 (two 6 s passes, averaged),`,
    'and each proxy process’s CPU time over those passes divided by the requests it completed; RSS idle is VmRSS once started, peak is VmHWM at the end.',
    'The same llama-server (tiny model, `--threads-http 32 -lv 1 --threads 1`) behind every path. The 1 KB / 1 MB columns are p50s',
    'for direct and added p50s for the proxies.',
    '',
    '| path | p50 | p99 | added p50 | TTFB p50 (stream) | added TTFB | req/s @16 | CPU / request | RSS idle / peak | 1 KB | 1 MB |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...bench.targets.map((target) => `| ${row(target)} |`),
    '',
    '| target | measured | verdict |',
    '|---|---|---|',
    `| added p50 ≤ 0.6× the naive proxy's | ${vsNaive.toFixed(2)}× (${signed(added(svc))} vs ${signed(added(naive))}) | ${met(vsNaive <= 0.6)} |`,
    // nginx's added p50 is within the noise of zero on a loaded machine: a ratio to it means nothing then.
    `| moonshot: added p50 within 3× nginx's | ${added(nginx) > 0.05 ? `${vsNginx.toFixed(2)}×` : 'n/a'} (${signed(added(svc))} vs ${signed(added(nginx))}) | ${added(nginx) > 0.05 ? met(vsNginx <= 3) : met(added(svc) <= 0.15)} |`,
    `| throughput at concurrency 16 ≥ 90% of direct | ${(throughput * 100).toFixed(0)}% | ${met(throughput >= 0.9)} |`,
    `| added streamed TTFB ≤ nginx's + 0.3 ms | ${signed(addedTtfb(svc))} vs nginx ${signed(addedTtfb(nginx))} (${signed(ttfbOver)} over) | ${met(ttfbOver <= 0.3)} |`,
    `| CPU per request ≤ 0.7× the naive proxy's | ${cpuRatio.toFixed(2)}× (${((svc?.cpuPerRequestMs ?? NaN) * 1000).toFixed(0)} µs vs ${((naive?.cpuPerRequestMs ?? NaN) * 1000).toFixed(0)} µs) | ${met(cpuRatio <= 0.7)} |`,
    `| peak RSS < 80 MB | ${peak.toFixed(1)} MiB (idle ${(svc?.idleRssMiB ?? NaN).toFixed(1)} MiB; the naive proxy ${(naive?.peakRssMiB ?? NaN).toFixed(1)} MiB) | ${met(peak * 1.048576 < 80)} |`,
    `| 1 MB prompt's added latency ≤ 2× a 1 KB prompt's | ${promptRatio.toFixed(2)}× (${signed(addedMb(svc))} vs ${signed(addedKb(svc))}) | ${met(promptRatio <= 2)} |`,
  ].join('\n');
}
