/** The `callers` section of docs/benchmarks.md from bench/callers/callers.ts's figures. */
import type { CallersBench } from './callers.ts';

const WEIGHTS = { high: 4, normal: 2, low: 1 } as const;
const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');

export function callersReport(bench: CallersBench, machine: string): string {
  const [plain, callers] = bench.cost;
  const cpuRatio = (callers?.cpuPerRequestMs ?? NaN) / (plain?.cpuPerRequestMs ?? NaN);
  const p50Ratio = (callers?.addedP50Ms ?? NaN) / (plain?.addedP50Ms ?? NaN);
  const shareRows = (Object.keys(WEIGHTS) as (keyof typeof WEIGHTS)[]).map((priority) => {
    const got = bench.shares[priority] / bench.counted;
    const want = WEIGHTS[priority] / 7;
    const off = Math.abs(got - want) / want;
    return `| ${priority} (${WEIGHTS[priority]}) | ${bench.shares[priority]} of ${bench.counted} = ${(got * 100).toFixed(1)}% | ${(want * 100).toFixed(1)}% | ${(off * 100).toFixed(1)}% off (${met(off <= 0.1)}) |`;
  });
  return [
    `Measured ${machine}, load average ${bench.load[0].toFixed(1)} → ${bench.load[1].toFixed(1)} (other work shares this machine). The built gateway twice over one \`svc daemon\` node running the fake engine (64 slots, instant replies), same run: once without \`callers\` and the gateway token, once with 50 callers in the fleet file and the 50th caller's token. p50 of ${bench.samples} sequential completions each, interleaved with the engine asked directly; CPU time of the gateway process per request over ${bench.loadRequests.toLocaleString('en')} requests at 16 at once, the least of 4 alternating passes.`,
    '',
    '| gateway | p50 | added p50 (over the engine asked directly) | CPU per request |',
    '|---|---|---|---|',
    ...bench.cost.map(
      (cost) =>
        `| ${cost.label} | ${cost.p50Ms.toFixed(2)} ms | +${cost.addedP50Ms.toFixed(2)} ms | ${cost.cpuPerRequestMs.toFixed(3)} ms |`,
    ),
    '',
    '| target | measured | verdict |',
    '|---|---|---|',
    `| CPU per request with 50 callers within 5% of none | ${cpuRatio.toFixed(3)}× | ${met(cpuRatio <= 1.05)} |`,
    `| added p50 with 50 callers within 5% of none | ${p50Ratio.toFixed(3)}× | ${met(p50Ratio <= 1.05)} |`,
    '',
    `Fair shares: callers \`high\`, \`normal\` and \`low\` each send ${bench.backlog} requests at once to a node of one slot (each reply holds it 20 ms); the first ${bench.counted} dispatches, while all three still have requests waiting:`,
    '',
    '| caller (weight) | dispatches | weight share | verdict (within 10%) |',
    '|---|---|---|---|',
    ...shareRows,
  ].join('\n');
}
