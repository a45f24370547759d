/**
 * The scheduler benchmark's scenarios on real llama-server nodes (bench/scheduler/scheduler.ts): 3, the share
 * of prompt tokens served from the engines' caches with `affinity: on` and `off` (docs/design.md
 * D25); 4, a swap in a group of one, time to first byte beside the engines' own stop and
 * start-to-ready measured through the daemon API (docs/design.md D26). Tiny model, 127.0.0.1,
 * processes stopped by PID.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { writeTinyModel } from '../../test/support/models/tiny-model.ts';
import { freePort } from '../support.ts';
import {
  allServing,
  type Build,
  gatewayFor,
  nodeStatus,
  type Run,
  sleep,
  startEngine,
  startNode,
  startThroughGateway,
  stopChild,
  stopEngine,
  untilReady,
} from './scheduler-fleet.ts';
import { type CacheShare, firstByte, sessions } from './scheduler-load.ts';

export interface AffinityRun extends Run {
  readonly variant: string;
  readonly share: CacheShare;
}

export interface SwapRound {
  readonly stopMs: number;
  readonly readyMs: number;
  readonly ttfbMs: number;
  /** To the engine's first `data:` event: what the swap is judged by. */
  readonly firstDataMs: number;
  readonly status: number;
  /** Whether A still ran once B had answered (no swap happened). */
  readonly aStillRunning: boolean;
}

export interface SwapRun extends Run {
  readonly rounds: readonly SwapRound[];
}

const realSvcfile = async (model: string, alias: string, parallel: number): Promise<string> =>
  `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\nPARALLEL ${parallel}\nCONTEXT 2048\nBASEURL 127.0.0.1:${await freePort()}\n`;

export async function scenarioAffinity(
  repoRoot: string,
  work: string,
  build: Build,
  model: string,
): Promise<AffinityRun[]> {
  const nodes = [await startNode(repoRoot, work, 's3-a'), await startNode(repoRoot, work, 's3-b')];
  const runs: AffinityRun[] = [];
  try {
    for (const node of nodes) {
      await writeFile(join(work, `${node.name}.svc`), await realSvcfile(model, 'tiny', 4));
    }
    for (const variant of ['affinity: on', 'affinity: off']) {
      const gateway = await gatewayFor(repoRoot, build, work, `s3-${runs.length}`, nodes, [
        variant,
      ]);
      try {
        await allServing(gateway.url, nodes);
        // A tag per run: no session finds another run's prompts in the engines' caches.
        const share = await sessions(gateway.url, 'tiny', 8, 10, `${runs.length}-${Date.now()}`);
        runs.push({
          build: build.label,
          variant,
          share,
          ...(gateway.refusal === undefined ? {} : { refusal: gateway.refusal }),
        });
      } finally {
        await stopChild(gateway.child);
      }
    }
  } finally {
    for (const node of nodes) {
      await stopChild(node.child);
    }
  }
  return runs;
}

async function engineHealthy(port: number): Promise<void> {
  for (;;) {
    try {
      const reply = await fetch(`http://127.0.0.1:${port}/health`);
      await reply.text();
      if (reply.status === 200) {
        return;
      }
    } catch {
      // not listening yet
    }
    await sleep(10);
  }
}

export async function scenarioSwap(
  repoRoot: string,
  work: string,
  build: Build,
  rounds: number,
): Promise<SwapRun> {
  const [a, b] = [await startNode(repoRoot, work, 's4-a'), await startNode(repoRoot, work, 's4-b')];
  const gateways: ChildProcess[] = [];
  try {
    await writeFile(
      join(work, 's4-a.svc'),
      await realSvcfile(await writeTinyModel(join(work, 'a.gguf')), 'tiny-a', 1),
    );
    await writeFile(
      join(work, 's4-b.svc'),
      await realSvcfile(await writeTinyModel(join(work, 'b.gguf')), 'tiny-b', 1),
    );
    const gateway = await gatewayFor(
      repoRoot,
      build,
      work,
      's4',
      [a, b],
      ['groups: {gpu: {max: 1, minResidency: 0s}}'],
      ['group: gpu'],
    );
    gateways.push(gateway.child);
    // Each node runs once through the gateway first, so a body-less daemon start reuses exactly
    // the config the gateway sends (docs/design.md D8): direct and gateway start the same engine
    // command.
    let enginePortB = 0;
    for (const node of [b, a]) {
      await startThroughGateway(gateway.url, node.name);
      const port = await untilReady(node);
      if (node === b) {
        enginePortB = port;
        await stopEngine(b);
      }
    }
    const measured: SwapRound[] = [];
    for (let round = 0; round < rounds; round += 1) {
      // Directly: stop A's engine, then start B's and watch its health check.
      let started = performance.now();
      await stopEngine(a);
      const stopMs = performance.now() - started;
      started = performance.now();
      await startEngine(b);
      // Ready = the engine's own health check answers (watched every 10 ms, as bench/wake.ts).
      await engineHealthy(enginePortB);
      const readyMs = performance.now() - started;
      // Back to A running, B stopped; then B through the gateway.
      await stopEngine(b);
      await startEngine(a);
      await untilReady(a);
      await sleep(2_500);
      const reply = await firstByte(gateway.url, 'tiny-b');
      const aStillRunning = (await nodeStatus(a)).state === 'running';
      measured.push({
        stopMs,
        readyMs,
        ttfbMs: reply.ms,
        firstDataMs: reply.dataMs,
        status: reply.status,
        aStillRunning,
      });
      await stopEngine(b);
      if (!aStillRunning) {
        await startEngine(a);
      }
      await untilReady(a);
    }
    return {
      build: build.label,
      rounds: measured,
      ...(gateway.refusal === undefined ? {} : { refusal: gateway.refusal }),
    };
  } finally {
    for (const child of [...gateways, a.child, b.child]) {
      await stopChild(child);
    }
  }
}
