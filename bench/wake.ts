/**
 * The wake gap (docs/benchmarks.md "wake"): a gateway request that wakes a stopped daemon node, at
 * the default sampler interval, gets its first byte how long after the engine first answers its
 * health check? The bench watches the engine's /health itself every 10 ms to time "ready", sends a
 * streamed request through the gateway to time its first byte, then stops the node and repeats.
 * Real parts only: the built svc, the real llama-server, the tiny model, all on 127.0.0.1.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { request } from 'undici';

import { freePort, startSvcDaemon, stopChildren, svcEnv, waitForLine } from './support.ts';

export interface WakeBench {
  readonly wakes: number;
  /** Engine ready → first byte at the gateway, per wake, in ms. */
  readonly gapsMs: readonly number[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `url` every 10 ms until it answers 200; resolves with the time it first did. */
async function firstHealthy(url: string, signal: AbortSignal): Promise<number> {
  while (!signal.aborted) {
    try {
      const reply = await request(url, { signal: AbortSignal.timeout(1_000) });
      await reply.body.dump();
      if (reply.statusCode === 200) {
        return performance.now();
      }
    } catch {
      // not listening yet
    }
    await sleep(10);
  }
  return Number.NaN;
}

async function stopAndWait(daemonUrl: string): Promise<void> {
  const reply = await request(`${daemonUrl}/v1/stop`, { method: 'POST' });
  await reply.body.dump();
  for (;;) {
    const status = await request(`${daemonUrl}/v1/status`);
    const body = (await status.body.json()) as { state: string };
    if (body.state !== 'running') {
      return;
    }
    await sleep(50);
  }
}

export async function benchWake(repoRoot: string, model: string, wakes = 8): Promise<WakeBench> {
  const work = await mkdtemp(join(tmpdir(), 'svc-wakebench-'));
  const children: ChildProcess[] = [];
  const env = svcEnv(repoRoot, {
    SVC_API_TOKEN: '',
    // The default cadence: this is what the figure is about.
    SVC_SAMPLE_INTERVAL_SECONDS: '',
  });
  const cli = join(repoRoot, 'dist', 'cli.js');
  try {
    const { url: daemonUrl } = await startSvcDaemon(repoRoot, env, join(work, 'node'), children);
    const enginePort = await freePort();
    await writeFile(
      join(work, 'node.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${enginePort}\n`,
    );
    await writeFile(
      join(work, 'fleet.yaml'),
      `nodes:\n  - name: bench\n    host: 127.0.0.1\n    port: ${new URL(daemonUrl).port}\n    file: node.svc\n    engine: {host: 127.0.0.1}\n`,
    );
    const gateway = spawn(
      process.execPath,
      [cli, 'gateway', '--listen', '127.0.0.1:0', '-f', join(work, 'fleet.yaml')],
      { env: { ...env, SVC_CONFIG_DIR: join(work, 'gateway') }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(gateway);
    const [, gatewayUrl = ''] = await waitForLine(gateway, /listening on (http:\/\/\S+)/);

    const gapsMs: number[] = [];
    for (let wake = 0; wake < wakes; wake += 1) {
      const watching = new AbortController();
      const healthy = firstHealthy(`http://127.0.0.1:${enginePort}/health`, watching.signal);
      const reply = await request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'tiny',
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 2,
          stream: true,
        }),
      });
      let firstByte = Number.NaN;
      let text = '';
      for await (const chunk of reply.body) {
        if (Number.isNaN(firstByte) && (chunk as Buffer).length > 0) {
          firstByte = performance.now();
        }
        text += reply.statusCode === 200 ? '' : (chunk as Buffer).toString('utf8');
      }
      watching.abort();
      if (reply.statusCode !== 200) {
        throw new Error(`wake ${wake}: HTTP ${reply.statusCode}: ${text}`);
      }
      gapsMs.push(firstByte - (await healthy));
      await stopAndWait(daemonUrl);
      // The gateway keeps node statuses for 2 s (node-snapshots.ts); a request sooner would be
      // routed to the engine just stopped. Waking is what is measured, so let that window pass.
      await sleep(3_000);
    }
    return { wakes, gapsMs };
  } finally {
    await stopChildren(children);
    await rm(work, { recursive: true, force: true });
  }
}
