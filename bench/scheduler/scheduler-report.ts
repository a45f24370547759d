/** The "Scheduler" section of docs/benchmarks.md from one run of bench/scheduler/scheduler.ts. */
import type { SchedulerBench, SwapRound } from './scheduler.ts';

const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');
const IDEAL_MS = 3_200;
const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const counts = (record: Readonly<Record<string, number>>): string =>
  Object.entries(record)
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ');
/** The keys the scenario asked for and, when the build refused them, its refusal in short. */
const fleet = (refusal: string | undefined, keys: string): string =>
  refusal === undefined
    ? `\`${keys}\``
    : `\`${keys}\` refused (${refusal.replace(/: (known keys here|did you mean).*?(?=( \(and \d+ more\))?$)/, '')}); ran without it`;

function makespanRows(bench: SchedulerBench): string[] {
  if (bench.makespan.length === 0) {
    return [];
  }
  return [
    '',
    '**1. Makespan.** Two fake nodes of 2 slots, `hold:200`, 64 requests at concurrency 8; ideal 64 × 0.2 s / 4 slots = 3.2 s.',
    '',
    '| build | makespan | vs ideal | replies | per node | target ≤ 1.15× |',
    '|---|---|---|---|---|---|',
    ...bench.makespan.map(
      (run) =>
        `| ${run.build} | ${(run.ms / 1000).toFixed(2)} s | ${(run.ms / IDEAL_MS).toFixed(2)}× | ${counts(run.statuses)} | ${counts(run.perNode)} | ${met(run.ms / IDEAL_MS <= 1.15)} |`,
    ),
  ];
}

function burstRows(bench: SchedulerBench): string[] {
  if (bench.burst.length === 0) {
    return [];
  }
  return [
    '',
    `**2. Queue bound.** One fake node of 2 slots, \`hold:${bench.burst[0]?.holdMs ?? '?'}\`, fleet \`queue: {max: 16}\`, 40 requests at once, each on its own connection.`,
    '',
    '| build | fleet file | 200 | 429 (with Retry-After) | other 4xx | 5xx | lost | first 200 after | all done after | target 18 × 200, 22 × 429 |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...bench.burst.map(({ build, refusal, burst }) => {
      const ok = burst.ok === 18 && burst.rateLimited === 22 && burst.retryAfter === 22;
      return `| ${build} | ${fleet(refusal, 'queue: {max: 16}')} | ${burst.ok} | ${burst.rateLimited} (${burst.retryAfter}) | ${burst.other4xx} | ${burst.server5xx} | ${burst.lost} | ${(burst.firstOkMs / 1000).toFixed(2)} s | ${(burst.ms / 1000).toFixed(2)} s | ${met(ok)} |`;
    }),
  ];
}

function affinityRows(bench: SchedulerBench): string[] {
  if (bench.affinity.length === 0) {
    return [];
  }
  const share = (cached: number, evaluated: number): number => cached / (cached + evaluated);
  const on = bench.affinity.find((run) => run.variant === 'affinity: on');
  const off = bench.affinity.find((run) => run.variant === 'affinity: off');
  const onShare = on === undefined ? Number.NaN : share(on.share.cached, on.share.evaluated);
  const offShare = off === undefined ? Number.NaN : share(off.share.cached, off.share.evaluated);
  return [
    '',
    '**3. Affinity.** Two real llama-server nodes (tiny model, `PARALLEL 4`, `CONTEXT 2048`), 8 sessions at once, each a private',
    "~900-character system prompt and 10 turns that grow it (max_tokens 8); share = Σ`cache_n` / Σ(`prompt_n` + `cache_n`) from the replies' `timings`.",
    '',
    '| build | fleet file | turns answered | prompt tokens from cache | evaluated | share from cache |',
    '|---|---|---|---|---|---|',
    ...bench.affinity.map(
      (run) =>
        `| ${run.build} | ${fleet(run.refusal, run.variant)} | ${run.share.turns} (errors ${run.share.errors}) | ${run.share.cached} | ${run.share.evaluated} | ${share(run.share.cached, run.share.evaluated).toFixed(2)} |`,
    ),
    '',
    `Target: ≥ 0.8 with affinity (${met(onShare >= 0.8 && on?.refusal === undefined)}: ${onShare.toFixed(2)}${on?.refusal === undefined ? '' : ', the key was refused'}), clearly above without (${offShare.toFixed(2)}).`,
  ];
}

function swapRows(bench: SchedulerBench): string[] {
  const swap = bench.swap;
  if (swap === undefined) {
    return [];
  }
  const of = (pick: (round: SwapRound) => number): number => median(swap.rounds.map(pick));
  const added = of((round) => round.firstDataMs - round.stopMs - round.readyMs);
  return [
    '',
    '**4. Swap.** A group of one (`groups: {gpu: {max: 1, minResidency: 0s}}`, both nodes `group: gpu`), two real llama-server nodes',
    "serving tiny-a and tiny-b. Direct: stop A's engine through its daemon (until its status leaves `running`), then start B's",
    '(until its engine answers /health, watched every 10 ms). Gateway: with A running and B stopped, a streamed request for tiny-b: time to first byte and to the first `data:` event (the gateway may send SSE comments while it wakes a node; added is judged on the first event).',
    `Fleet file: ${fleet(swap.refusal, 'groups … / group: gpu')}.`,
    '',
    '| round | stop A | start B → ready | stop + start | B via gateway: first byte | first `data:` event | added | A still running after |',
    '|---|---|---|---|---|---|---|---|',
    ...swap.rounds.map(
      (round, index) =>
        `| ${index + 1} | ${round.stopMs.toFixed(0)} ms | ${round.readyMs.toFixed(0)} ms | ${(round.stopMs + round.readyMs).toFixed(0)} ms | ${round.ttfbMs.toFixed(0)} ms (HTTP ${round.status}) | ${round.firstDataMs.toFixed(0)} ms | ${(round.firstDataMs - round.stopMs - round.readyMs).toFixed(0)} ms | ${round.aStillRunning ? 'yes (no swap)' : 'no'} |`,
    ),
    '',
    `Target: the gateway adds ≤ 0.3 s (median ${added.toFixed(0)} ms: ${met(added <= 300 && swap.rounds.every((round) => !round.aStillRunning))}; a run where A kept running did not swap, so it cannot meet it).`,
  ];
}

export function schedulerReport(bench: SchedulerBench, machine: string): string {
  return [
    `Measured ${machine}, load average ${bench.load[0].toFixed(1)} at the start and ${bench.load[1].toFixed(1)} at the end (other work shares this machine).`,
    `Builds: ${bench.builds.join('; ')}. The fake engine is test/fixtures/fake-engine.mjs (\`slots:N,hold:MS\`) run by a real \`svc daemon\` per node.`,
    ...makespanRows(bench),
    ...burstRows(bench),
    ...affinityRows(bench),
    ...swapRows(bench),
  ].join('\n');
}
