/**
 * `npx tsx bench/gateway-profile.ts [out-dir]`: runs the built gateway under `node --cpu-prof`
 * against the real llama-server with the benchmark's load (wrk at concurrency 16 on non-streamed
 * requests, then sequential streamed ones) and prints the profile's top self-time entries. The
 * hot path is changed from these, not from guesses (docs/benchmarks.md, "Profile").
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Pool } from 'undici';

import { writeTinyModel } from '../test/support/models/tiny-model.ts';
import { startBenchPaths } from './gateway-paths.ts';
import { readProfile } from './profile-summary.ts';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../..');
const out = resolve(process.argv[2] ?? join(repoRoot, '.cache', 'bench', 'profile'));
await mkdir(out, { recursive: true });
const model = await writeTinyModel(join(repoRoot, '.cache', 'bench', 'tiny.gguf'));
const paths = await startBenchPaths(repoRoot, model, ['--cpu-prof', '--cpu-prof-dir', out]);
const gateway = paths.targets.find((target) => target.name === 'svc gateway');
try {
  const lua = join(paths.work, 'post.lua');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    lua,
    `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = '{"model":"tiny","messages":[{"role":"user","content":"hi"}],"max_tokens":1}'\n`,
  );
  execFileSync('wrk', ['-t2', '-c16', '-d10s', '-s', lua, `${gateway?.url}/v1/chat/completions`], {
    stdio: 'inherit',
  });
  const pool = new Pool(gateway?.url ?? '', { connections: 1 });
  for (let round = 0; round < 1000; round += 1) {
    const reply = await pool.request({
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"tiny","messages":[{"role":"user","content":"hi"}],"max_tokens":4,"stream":true}',
    });
    await reply.body.dump();
  }
  await pool.close();
} finally {
  await paths.close();
}
const profiles = (await readdir(out)).filter((name) => name.endsWith('.cpuprofile')).sort();
const latest = profiles.at(-1);
if (latest === undefined) {
  throw new Error(`no .cpuprofile written under ${out}`);
}
for (const entry of await readProfile(join(out, latest), 15)) {
  process.stdout.write(
    `${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.selfMs.toFixed(0).padStart(6)} ms  ${entry.name}\n`,
  );
}
