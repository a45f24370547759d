/** The local-node section of docs/benchmarks.md from one run's figures (bench/local.ts). */
import type { LocalBench, LocalFigures } from './local.ts';

const ms = (value: number): string => `${value.toFixed(2)} ms`;
const signed = (value: number): string => `${value >= 0 ? '+' : '−'}${ms(Math.abs(value))}`;
const micros = (valueMs: number): string => `${(valueMs * 1000).toFixed(0)} µs`;
const mib = (value: number): string => `${value.toFixed(1)} MiB`;
const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');

export function localReport(bench: LocalBench, machine: string): string {
  const directs = bench.targets.filter((target) => target.kind === 'direct');
  const [directLocal, directDaemon] = directs;
  const mean = (pick: (target: LocalFigures) => number): number =>
    directs.reduce((sum, target) => sum + pick(target), 0) / directs.length;
  // A one-node path is compared with its own engine taken directly; a two-node path, whose
  // engines are started the same way, with the mean of the two.
  const reference = (target: LocalFigures): { p50: number; ttfb: number } => {
    const own = target.nodes > 1 ? undefined : target.kind === 'local' ? directLocal : directDaemon;
    return own === undefined
      ? { p50: mean((each) => each.p50), ttfb: mean((each) => each.ttfbP50) }
      : { p50: own.p50, ttfb: own.ttfbP50 };
  };
  const added = (target: LocalFigures | undefined): number =>
    target === undefined ? NaN : target.p50 - reference(target).p50;
  const row = (target: LocalFigures): string => {
    const isDirect = target.kind === 'direct';
    const gatewayRss =
      target.rss === undefined ? '—' : `${mib(target.rss.idle)} / ${mib(target.rss.peak)}`;
    const daemonRss =
      target.daemonRss === undefined
        ? isDirect
          ? '—'
          : 'none: the gateway supervises the engine'
        : `${mib(target.daemonRss.idle)} / ${mib(target.daemonRss.peak)}`;
    const totalPeak =
      target.rss === undefined ? '—' : mib(target.rss.peak + (target.daemonRss?.peak ?? 0));
    const cpu =
      target.cpuPerRequestMs === undefined
        ? '—'
        : `${micros(target.cpuPerRequestMs)}${target.daemonCpuPerRequestMs === undefined ? '' : ` (daemon ${micros(target.daemonCpuPerRequestMs)})`}`;
    return [
      target.name,
      ms(target.p50),
      ms(target.p99),
      isDirect ? '—' : signed(added(target)),
      ms(target.ttfbP50),
      isDirect ? '—' : signed(target.ttfbP50 - reference(target).ttfb),
      target.rps.toFixed(0),
      cpu,
      gatewayRss,
      daemonRss,
      totalPeak,
    ].join(' | ');
  };
  const find = (kind: LocalFigures['kind'], nodes: number): LocalFigures | undefined =>
    bench.targets.find((target) => target.kind === kind && target.nodes === nodes);
  const verdict = (nodes: number, label: string): string => {
    const local = added(find('local', nodes));
    const daemon = added(find('daemon', nodes));
    return `| ${label} | ${signed(local)} vs ${signed(daemon)} (${signed(local - daemon)}) | ${met(local <= daemon)} |`;
  };
  const pairs = find('local', 2) !== undefined && find('daemon', 2) !== undefined;
  return [
    `Measured ${machine}, load average ${bench.load[0].toFixed(1)} at the start and ${bench.load[1].toFixed(1)} at the end (other work shares this machine);`,
    `${bench.rounds} interleaved rounds of one non-streaming request (max_tokens 1) and one streamed request (max_tokens 4) per path, after 50 warm-up rounds;`,
    `a path over two nodes alternates between their two models. Throughput with wrk at concurrency 16 (two ${bench.wrkSeconds} s passes, averaged; the first model only),`,
    "and the gateway's CPU time over those passes divided by the requests it completed (a daemon node's daemon's beside it). RSS idle is VmRSS once",
    'every engine ran, before any request; peak is VmHWM at the end (two daemons: summed). Every engine is the same llama-server (tiny model,',
    '`--threads-http 32 -lv 1 --threads 1` from one preset), started by its supervisor from a Svcfile. A local node puts its',
    "engine's supervision (state record, sampler, watchdog's parent) in the gateway process, where a daemon node keeps it in",
    "the daemon: compare the local row's gateway RSS with the daemon row's gateway + daemon.",
    '',
    '| path | p50 | p99 | added p50 | TTFB p50 (stream) | added TTFB | req/s @16 | gateway CPU / request | gateway RSS idle / peak | daemon RSS idle / peak | gateway + daemon peak |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...bench.targets.map((target) => `| ${row(target)} |`),
    '',
    '| target | measured (local vs daemon) | verdict |',
    '|---|---|---|',
    verdict(1, "local node's added p50 ≤ the daemon node's, same run"),
    ...(pairs ? [verdict(2, "two local nodes' added p50 ≤ two daemon nodes', same run")] : []),
  ].join('\n');
}
