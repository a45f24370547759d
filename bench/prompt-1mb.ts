/**
 * `BENCH_GATEWAY_BEFORE=<another build's cli.js> npx tsx bench/prompt-1mb.ts [rounds]`: the 1 MB
 * prompt's added latency alone, this build's gateway beside another build's over the same engine,
 * interleaved round by round in a rotating order (the gateway section's 1 MB column takes 100
 * rounds inside a longer run; this one isolates it). Prints each path's p50 and what it adds.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Pool } from 'undici';

import { writeTinyModel } from '../test/support/models/tiny-model.ts';
import { startBenchPaths } from './gateway-paths.ts';

const repoRoot = process.cwd();
const benchRoot = resolve(fileURLToPath(import.meta.url), '../..');
const rounds = Number(process.argv[2] ?? 300);
const MB_BODY = JSON.stringify({
  model: 'tiny',
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 1,
  user: 'lorem ipsum dolor sit amet, '.repeat(37_450),
});

const model = await writeTinyModel(join(benchRoot, '.cache', 'bench', 'tiny.gguf'));
const paths = await startBenchPaths(repoRoot, model);
try {
  const series = paths.targets.map((target) => ({
    target,
    pool: new Pool(target.url, { connections: 1, keepAliveTimeout: 4_000 }),
    times: [] as number[],
  }));
  for (let round = 0; round < rounds; round += 1) {
    for (let index = 0; index < series.length; index += 1) {
      const each = series[(index + round) % series.length] as (typeof series)[number];
      const started = performance.now();
      const reply = await each.pool.request({
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: MB_BODY,
      });
      await reply.body.dump();
      each.times.push(performance.now() - started);
    }
  }
  const p50 = (times: number[]): number =>
    [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;
  const direct = p50(series[0]?.times ?? []);
  for (const { target, times } of series) {
    const median = p50(times);
    process.stdout.write(
      `${target.name.padEnd(24)} p50 ${median.toFixed(2)} ms  added ${(median - direct).toFixed(2)} ms\n`,
    );
  }
  await Promise.all(series.map((each) => each.pool.close()));
} finally {
  await paths.close();
}
