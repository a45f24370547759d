/** The keepcache section's table (docs/benchmarks.md "keepcache"), from bench/keepcache/keepcache.ts. */
import {
  BENCH_CONTEXT,
  BENCH_TRAINED_CONTEXT,
  type KeepCacheBench,
  type SizeFigures,
} from './keepcache.ts';

const ms = (value: number | undefined): string =>
  value === undefined || Number.isNaN(value) ? '–' : `${value.toFixed(0)} ms`;

function mib(bytes: number | undefined): string {
  return bytes === undefined || Number.isNaN(bytes) ? '–' : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

/** One row: the woken turn with keepCache beside without, and what the save and restore cost. */
export function keepCacheRow(size: SizeFigures): string {
  const { kept, plain } = size;
  const beats = kept.restoreMs !== undefined && kept.restoreMs < plain.prefillMs;
  return `| ${(size.target / 1000).toFixed(0)}k (${size.promptN}) | ${ms(kept.firstTokenMs)} | ${ms(plain.firstTokenMs)} | ${ms(kept.prefillMs)} (cache_n ${kept.cacheN}) | ${ms(plain.prefillMs)} (cache_n ${plain.cacheN}) | ${ms(kept.restoreMs)} | ${beats ? 'yes' : 'NO'} | ${ms(kept.saveMs)} | ${ms(kept.stopMs)} / ${ms(plain.stopMs)} | ${mib(kept.bytes)} |`;
}

export const KEEP_CACHE_HEADER = [
  '| conversation (tokens) | first token after wake, keepCache | without | prefill after wake, keepCache | without | restore | restore < re-prefill | save | stop, keepCache / without | bytes written |',
  '|---|---|---|---|---|---|---|---|---|---|',
];

export function keepCacheReport(bench: KeepCacheBench, machine: string, load: string): string {
  return [
    `Measured ${machine}, ${load}: one gateway running two local nodes on the tiny model`,
    `(declaring a ${BENCH_TRAINED_CONTEXT}-token training context; \`CONTEXT ${BENCH_CONTEXT}\`, \`PARALLEL 1\`), \`kept\` with \`keepCache: on\` and \`plain\` without. Per size and`,
    `round (median of ${bench.rounds}, the two nodes interleaved): the conversation's first turn, a graceful stop`,
    'through the gateway, then the next turn, which wakes the node. First token = that turn sent to its',
    "one-token reply (engine start, restore or prefill, one token); prefill = the engine's own `prompt_ms`",
    "for it; restore = `lastCacheRestore.ms` from the gateway's wake line; save = the engine's own save",
    "time from the gateway's `engine slots saved` line; stop = the graceful stop through the gateway.",
    '',
    ...KEEP_CACHE_HEADER,
    ...bench.sizes.map(keepCacheRow),
  ].join('\n');
}
