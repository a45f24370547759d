/**
 * Upstream nodes and fallbacks (docs/design.md D30), `BENCH_ONLY=upstreams`, on the built gateway
 * with the fake OpenAI server (fake-openai-process.ts, a process of its own) as the upstream and real
 * `svc daemon` nodes running the fake engine (test/fixtures/fake-engine.mjs):
 * (a) `fallbacks: {fake: {to: hosted, when: [waking]}}` over a stopped node whose engine takes 5 s
 * to load (`slow-health:5000`): each round's first reply for the model through a fresh gateway
 * (warmed with a model only the upstream serves), its time to first byte beside the upstream's
 * own (asked directly around it), and that the wake still started;
 * (b) what the gateway adds on the request path over each backend's direct time, an upstream node
 * beside a daemon node in one gateway, same run: p50 of interleaved sequential requests and the
 * gateway's CPU time per request at 16 at once, the least of alternating passes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { Pool } from 'undici';

import {
  cpuPerRequest,
  type Gateway,
  gateway,
  GATEWAY_TOKEN,
  once,
  serving,
  startVia,
} from '../callers/callers.ts';
import { stopChild, track } from '../fleet/fleet-processes.ts';
import { percentile } from '../gateway.ts';
import {
  type BenchNode,
  fleetText,
  sleep,
  stopEngine,
  untilReady,
} from '../scheduler/scheduler-fleet.ts';
import { waitForLine } from '../support.ts';

export interface WakingRound {
  /** The first reply's time to first byte through the gateway (its waking fallback). */
  readonly gatewayMs: number;
  /** The upstream's own, asked directly: the median of the asks around the gateway's. */
  readonly upstreamMs: number;
  /** From the request until the node it woke answered ready. */
  readonly wokeMs: number;
}

export interface PathCost {
  readonly label: string;
  readonly directP50Ms: number;
  readonly p50Ms: number;
  readonly addedP50Ms: number;
  readonly cpuPerRequestMs: number;
}

export interface UpstreamsBench {
  readonly rounds: readonly WakingRound[];
  readonly cost: readonly PathCost[];
  readonly samples: number;
  readonly loadRequests: number;
  readonly load: readonly [number, number];
}

const auth = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const STREAM = (model: string): string =>
  JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] });
const PLAIN = (model: string): string =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] });

/** What this section needs before anything starts: the build and the fake engine. */
export async function upstreamsPrerequisites(repoRoot: string): Promise<string[]> {
  const needed = [
    [join(repoRoot, 'dist', 'cli.js'), 'run npm run build first'],
    [join(repoRoot, 'test', 'fixtures', 'bin', 'llama-server'), 'the fake engine is missing'],
  ];
  const missing: string[] = [];
  for (const [path, why] of needed) {
    await access(path ?? '').catch(() => missing.push(`${path ?? ''}: ${why ?? ''}`));
  }
  return missing;
}

/** A streamed completion's time to its first body byte, and its headers. */
async function firstByte(
  pool: Pool,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ ms: number; headers: Record<string, unknown> }> {
  const started = performance.now();
  const reply = await pool.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  let first: number | undefined;
  reply.body.on('data', () => {
    first ??= performance.now();
  });
  await new Promise((resolve, reject) => {
    reply.body.on('end', resolve).on('error', reject);
  });
  if (reply.statusCode !== 200 || first === undefined) {
    throw new Error(`HTTP ${reply.statusCode} with no body`);
  }
  return { ms: first - started, headers: reply.headers };
}

/** Until the gateway's route for `model` is `action` (its node states are a few seconds old). */
async function untilRoute(via: Gateway, model: string, action: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const reply = await fetch(`${via.url}/v1/fleet/route?model=${model}`, { headers: auth });
    if (((await reply.json()) as { action?: string }).action === action) {
      return;
    }
    await sleep(100);
  }
  throw new Error(`the gateway's route for ${model} never became ${action}`);
}

interface FakeOpenai {
  readonly url: string;
  readonly child: ChildProcess;
}

/** The fake OpenAI server in its own process (fake-openai-process.ts). */
async function fakeOpenai(repoRoot: string, answer: 'stream' | 'json'): Promise<FakeOpenai> {
  const script = join(repoRoot, 'bench', 'upstreams', 'fake-openai-process.ts');
  // One process (node with tsx's loader), so stopping it by its PID stops the server.
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', script, answer], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const [, url = ''] = await waitForLine(child, /listening on (http:\/\/\S+)/);
  return { url, child };
}

function upstreamLines(fake: FakeOpenai, models: string): string {
  return `  - name: hosted\n    kind: upstream\n    url: ${fake.url}\n    models: [${models}]\n`;
}

async function waking(repoRoot: string, work: string, rounds: number): Promise<WakingRound[]> {
  const fake = await fakeOpenai(repoRoot, 'stream');
  const node = await serving(repoRoot, work, 'sleepy', 'slow-health:5000', 1);
  const top = ['fallbacks:', '  fake: {to: hosted, when: [waking]}'];
  // `warm`: a model only the upstream serves, asked first so the round times the fallback, not a
  // fresh process's first request (its code loaded, its connection to the upstream opened).
  const text = fleetText(top, [node]) + upstreamLines(fake, 'fake, warm');
  const direct = new Pool(new URL(fake.url).origin, { connections: 1 });
  const found: WakingRound[] = [];
  try {
    // A fresh gateway each round: its first reply is a first one, and its request never rides on
    // the last round's wake, which fails when the node is stopped (once its daemon says ready)
    // before that gateway's wake has seen it ready; one gateway would then wake the node only at
    // its next status of it, and the round's wake time would count that wait.
    for (let round = 0; round < rounds; round += 1) {
      const via = await gateway(repoRoot, work, `waking-${round}`, text);
      const through = new Pool(via.url, { connections: 1 });
      try {
        await untilRoute(via, 'fake', 'fallback');
        for (let warm = 0; warm < 3; warm += 1) {
          await firstByte(through, STREAM('warm'), auth);
        }
        const own = [
          await firstByte(direct, STREAM('fake')),
          await firstByte(direct, STREAM('fake')),
        ];
        const sent = performance.now();
        const reply = await firstByte(through, STREAM('fake'), auth);
        if (reply.headers['x-svc-fallback'] !== 'waking') {
          throw new Error(`round ${round}: the first reply was not the waking fallback's`);
        }
        own.push(await firstByte(direct, STREAM('fake')), await firstByte(direct, STREAM('fake')));
        await untilReady(node);
        const wokeMs = performance.now() - sent;
        const upstreamMs = percentile(
          own.map((each) => each.ms),
          50,
        );
        found.push({ gatewayMs: reply.ms, upstreamMs, wokeMs });
        await stopEngine(node);
      } finally {
        await through.close();
        await stopChild(via.child);
      }
    }
    return found;
  } finally {
    await direct.close();
    await stopChild(node.child);
    await stopChild(fake.child);
  }
}

async function pathCost(
  repoRoot: string,
  work: string,
  samples: number,
  loadRequests: number,
): Promise<PathCost[]> {
  const fake = await fakeOpenai(repoRoot, 'json');
  const node: BenchNode = await serving(repoRoot, work, 'local', 'slots:64', 64);
  const via = await gateway(
    repoRoot,
    work,
    'cost',
    fleetText([], [node]) + upstreamLines(fake, 'up'),
  );
  const enginePort = await startVia(via, node);
  await untilRoute(via, 'up', 'serve');
  const paths = [
    { label: 'daemon node (fake engine)', model: 'fake', origin: `http://127.0.0.1:${enginePort}` },
    { label: 'upstream node (fake OpenAI)', model: 'up', origin: new URL(fake.url).origin },
  ];
  const direct = paths.map((path) => new Pool(path.origin, { connections: 16 }));
  const through = new Pool(via.url, { connections: 16, keepAliveTimeout: 4_000 });
  try {
    const alone = paths.map(() => [] as number[]);
    const relayed = paths.map(() => [] as number[]);
    for (let round = 0; round < 50 + samples; round += 1) {
      for (let offset = 0; offset < paths.length; offset += 1) {
        const index = (round + offset) % paths.length;
        const body = PLAIN(paths[index]?.model ?? '');
        const own = await once(direct[index] as Pool, '', body);
        const took = await once(through, GATEWAY_TOKEN, body);
        if (round >= 50) {
          alone[index]?.push(own);
          relayed[index]?.push(took);
        }
      }
    }
    const cpu = paths.map(() => [] as number[]);
    for (let pass = 0; pass < 4; pass += 1) {
      for (let offset = 0; offset < paths.length; offset += 1) {
        const index = (pass + offset) % paths.length;
        const body = PLAIN(paths[index]?.model ?? '');
        cpu[index]?.push(await cpuPerRequest(through, via, GATEWAY_TOKEN, loadRequests, body));
      }
    }
    return paths.map((path, index) => {
      const directP50Ms = percentile(alone[index] ?? [], 50);
      const p50Ms = percentile(relayed[index] ?? [], 50);
      // The least pass: on a shared machine a pass can only be slowed by other work.
      const cpuPerRequestMs = Math.min(...(cpu[index] ?? []));
      return {
        label: path.label,
        directP50Ms,
        p50Ms,
        addedP50Ms: p50Ms - directP50Ms,
        cpuPerRequestMs,
      };
    });
  } finally {
    await Promise.all([...direct, through].map((pool) => pool.close()));
    await stopChild(via.child);
    await stopChild(node.child);
    await stopChild(fake.child);
  }
}

/** Runs (a) then (b); `report` gets each table as its scenario ends. */
export async function benchUpstreams(
  repoRoot: string,
  report: (part: 'waking' | 'cost', bench: UpstreamsBench) => void,
  rounds = 5,
  samples = 1_000,
  loadRequests = 2_000,
): Promise<UpstreamsBench> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-upstreams-'));
  const now = (): readonly [number, number] => [loadAtStart, loadavg()[0] ?? Number.NaN];
  try {
    const found = await waking(repoRoot, work, rounds);
    const partial = { rounds: found, cost: [], samples, loadRequests, load: now() };
    report('waking', partial);
    const cost = await pathCost(repoRoot, work, samples, loadRequests);
    const bench = { ...partial, cost, load: now() };
    report('cost', bench);
    return bench;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
