/**
 * What sampling costs: the built daemon supervises the real llama-server (tiny model, idle) with
 * the default 15 s sampler tick, and its own CPU time and RSS are read from /proc over a few
 * minutes. Target: under 0.5% of one core on average. Linux only.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort, svcEnv, waitForLine } from './support.ts';

export interface SamplerCost {
  seconds: number;
  cpuPercentOfOneCore: number;
  rssStartMiB: number;
  rssEndMiB: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

async function cpuTicks(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

export async function benchSamplerCost(
  repoRoot: string,
  seconds: number,
  model: string,
): Promise<SamplerCost> {
  const configDir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const daemon = spawn(
    process.execPath,
    [join(repoRoot, 'dist', 'cli.js'), 'daemon', '--api-addr', '127.0.0.1:0'],
    {
      env: svcEnv(repoRoot, { SVC_CONFIG_DIR: configDir, SVC_SAMPLE_INTERVAL_SECONDS: '' }),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const [, url = ''] = await waitForLine(daemon, /listening on (http:\/\/\S+)/);
    const port = await freePort();
    const started = await fetch(`${url}/v1/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        runner: 'llamacpp',
        modelId: model,
        serveArgs: ['--host', '127.0.0.1', '--port', String(port)],
      }),
    });
    if (started.status !== 200) {
      throw new Error(`start failed: ${await started.text()}`);
    }
    const pid = daemon.pid ?? 0;
    // Let start-up settle, then measure only the steady state.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const ticks0 = await cpuTicks(pid);
    const rssStartMiB = await rssMiB(pid);
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const elapsed = (performance.now() - t0) / 1000;
    const used = ((await cpuTicks(pid)) - ticks0) / TICKS_PER_SECOND;
    return {
      seconds: Math.round(elapsed),
      cpuPercentOfOneCore: (used / elapsed) * 100,
      rssStartMiB,
      rssEndMiB: await rssMiB(pid),
    };
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((resolve) => daemon.once('exit', resolve));
    await rm(configDir, { recursive: true, force: true });
  }
}
