/** The `upstreams` section of docs/benchmarks.md from bench/upstreams/upstreams.ts's figures. */
import { percentile } from '../gateway.ts';
import type { UpstreamsBench } from './upstreams.ts';

const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');
const ms = (value: number): string => `${value.toFixed(2)} ms`;

/** (a): each round's first reply beside the upstream's own, and the median difference. */
export function wakingTable(bench: UpstreamsBench): string {
  const over = bench.rounds.map((round) => round.gatewayMs - round.upstreamMs);
  const median = percentile(over, 50);
  return [
    '| round | first reply TTFB (gateway, waking fallback) | upstream TTFB (direct) | over the upstream | node woken and ready after |',
    '|---|---|---|---|---|',
    ...bench.rounds.map(
      (round, index) =>
        `| ${index + 1} | ${ms(round.gatewayMs)} | ${ms(round.upstreamMs)} | +${ms(round.gatewayMs - round.upstreamMs)} | ${(round.wokeMs / 1000).toFixed(2)} s |`,
    ),
    '',
    '| target | measured | verdict |',
    '|---|---|---|',
    `| first reply within 50 ms of the upstream's own TTFB (median over rounds) | +${ms(median)} | ${met(median <= 50)} |`,
  ].join('\n');
}

/** (b): what the gateway adds over each backend asked directly, and the verdict. */
export function costTable(bench: UpstreamsBench): string {
  const [daemon, upstream] = bench.cost;
  const added = (upstream?.addedP50Ms ?? NaN) - (daemon?.addedP50Ms ?? NaN);
  const cpu = (upstream?.cpuPerRequestMs ?? NaN) / (daemon?.cpuPerRequestMs ?? NaN);
  return [
    '| node | backend direct p50 | through the gateway p50 | added p50 | gateway CPU per request |',
    '|---|---|---|---|---|',
    ...bench.cost.map(
      (cost) =>
        `| ${cost.label} | ${ms(cost.directP50Ms)} | ${ms(cost.p50Ms)} | +${ms(cost.addedP50Ms)} | ${cost.cpuPerRequestMs.toFixed(3)} ms |`,
    ),
    '',
    '| target | measured | verdict |',
    '|---|---|---|',
    `| an upstream node adds at most a daemon node's p50 | ${added >= 0 ? '+' : ''}${ms(added)} | ${met(added <= 0)} |`,
    `| an upstream node's CPU per request at most a daemon node's | ${cpu.toFixed(3)}× | ${met(cpu <= 1)} |`,
  ].join('\n');
}

export function upstreamsReport(bench: UpstreamsBench, machine: string): string {
  return [
    `Measured ${machine}, load average ${bench.load[0].toFixed(1)} → ${bench.load[1].toFixed(1)} (other work shares this machine).`,
    '',
    `(a) \`fallbacks: {fake: {to: hosted, when: [waking]}}\`, the node serving \`fake\` stopped and its engine taking 5 s to load (the fake engine, \`slow-health:5000\`), the upstream the fake OpenAI server streaming two chunks. Each of ${bench.rounds.length} rounds starts a fresh gateway, so that no round's request rides on the last round's wake (the node is stopped once its daemon says ready, which may be before that gateway's wake has seen it; the wake then fails, and one gateway would wake the node again only at its next status of it, a few seconds later), and warms it with three requests for a model only the upstream serves; once its route says \`fallback\`, one streamed request for \`fake\` through the gateway, the upstream asked directly twice before and twice after it (their median), then the node stopped again once its wake is done.`,
    '',
    wakingTable(bench),
    '',
    `(b) One gateway over a daemon node (the fake engine, 64 slots, instant replies) and an upstream node (the fake OpenAI server), same run: p50 of ${bench.samples} sequential completions each, each backend asked directly just before; the gateway's CPU time per request over ${bench.loadRequests.toLocaleString('en')} requests at 16 at once, the least of 4 alternating passes. The two backends differ, so what is compared is what the gateway adds over each.`,
    '',
    costTable(bench),
  ].join('\n');
}
