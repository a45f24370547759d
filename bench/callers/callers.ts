/**
 * What callers cost and what they get (docs/design.md D29), `BENCH_ONLY=callers`, on the built
 * gateway in front of real `svc daemon` nodes running the fake engine (test/fixtures/fake-engine.mjs):
 * (a) the same build twice over one node, once with no `callers` (the gateway token) and once with
 * 50 callers in the file and the last caller's token: p50 of sequential requests, interleaved,
 * and the gateway process's CPU time per request under 16 concurrent requests, in passes that
 * alternate; (b) three callers at high, normal and low, each with a backlog on a node of one slot:
 * which caller each of the first dispatches went to, while all three still wait.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { Pool } from 'undici';

import { stopChild } from '../fleet/fleet-processes.ts';
import { percentile } from '../gateway.ts';
import { cpuTimeMs } from '../proc-stats.ts';
import {
  type BenchNode,
  fleetText,
  sleep,
  startGateway,
  startNode,
  untilReady,
} from '../scheduler/scheduler-fleet.ts';
import { freePort } from '../support.ts';

export const GATEWAY_TOKEN = 'bench-gateway-token';
const callerToken = (index: number): string => `bench-caller-token-${index}`;
const sha = (token: string): string => createHash('sha256').update(token).digest('hex');
const BODY = JSON.stringify({ model: 'fake', messages: [{ role: 'user', content: 'hi' }] });

export interface CallerCost {
  readonly label: string;
  readonly p50Ms: number;
  /** Over the engine's own p50, asked directly in the same rounds. */
  readonly addedP50Ms: number;
  readonly cpuPerRequestMs: number;
}

export interface CallersBench {
  readonly cost: readonly CallerCost[];
  readonly samples: number;
  readonly loadRequests: number;
  /** Dispatches counted per priority over the first `counted` of a backlog on one slot. */
  readonly shares: Readonly<Record<'high' | 'normal' | 'low', number>>;
  readonly counted: number;
  readonly backlog: number;
  readonly load: readonly [number, number];
}

export interface Gateway {
  readonly url: string;
  readonly child: ChildProcess;
}

/** The built gateway over `text` (a fleet file), with the bench's gateway token. */
export async function gateway(
  repoRoot: string,
  work: string,
  tag: string,
  text: string,
): Promise<Gateway> {
  const cli = join(repoRoot, 'dist', 'cli.js');
  const run = await startGateway(repoRoot, cli, work, tag, text, { SVC_API_TOKEN: GATEWAY_TOKEN });
  if (!run.up) {
    throw new Error(`the gateway refused its fleet file: ${run.refusal}`);
  }
  return run;
}

/** A daemon node running the fake engine (`modes`) as `fake`, with `slots` in its Svcfile. */
export async function serving(
  repoRoot: string,
  work: string,
  name: string,
  modes: string,
  slots: number,
): Promise<BenchNode> {
  const node = await startNode(repoRoot, work, name, modes);
  await writeFile(
    join(work, `${name}.svc`),
    `PROVIDER llamacpp\nMODEL org/fake\nALIAS fake\nPARALLEL ${slots}\nBASEURL 127.0.0.1:${await freePort()}\n`,
  );
  return node;
}

/** Starts the node through the gateway; resolves with its engine's port. */
export async function startVia(via: Gateway, node: BenchNode): Promise<number> {
  const reply = await fetch(`${via.url}/v1/fleet/nodes/${node.name}/start`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GATEWAY_TOKEN}` },
  });
  const text = await reply.text();
  if (reply.status !== 200 && reply.status !== 409) {
    throw new Error(`start ${node.name}: HTTP ${reply.status} ${text}`);
  }
  const port = await untilReady(node);
  // The gateway keeps node statuses for 2 s: let it see the node running.
  await sleep(2_500);
  return port;
}

/** One completion (`body`, by default the fake engine's model); resolves with its time. */
export async function once(pool: Pool, token: string, body = BODY): Promise<number> {
  const started = performance.now();
  const reply = await pool.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  await reply.body.text();
  if (reply.statusCode !== 200) {
    throw new Error(`HTTP ${reply.statusCode}`);
  }
  return performance.now() - started;
}

/** `requests` at 16 at once; the gateway's CPU time per request. */
export async function cpuPerRequest(
  pool: Pool,
  via: Gateway,
  token: string,
  requests: number,
  body = BODY,
): Promise<number> {
  const pid = via.child.pid ?? 0;
  const before = await cpuTimeMs(pid);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < requests) {
        next += 1;
        await once(pool, token, body);
      }
    }),
  );
  return ((await cpuTimeMs(pid)) - before) / requests;
}

async function costs(
  repoRoot: string,
  work: string,
  samples: number,
  loadRequests: number,
): Promise<CallerCost[]> {
  const node = await serving(repoRoot, work, 'n1', 'slots:64', 64);
  const callers = Array.from(
    { length: 50 },
    (_, index) => `  - {name: c${index + 1}, tokenSha256: "${sha(callerToken(index + 1))}"}`,
  );
  const runs = [
    { label: 'gateway token, no callers', token: GATEWAY_TOKEN, top: [] as string[] },
    { label: '50 callers, a caller token', token: callerToken(50), top: ['callers:', ...callers] },
  ];
  const started = await Promise.all(
    runs.map((run, index) => gateway(repoRoot, work, `cost-${index}`, fleetText(run.top, [node]))),
  );
  const enginePort = await startVia(started[0] as Gateway, node);
  const direct = new Pool(`http://127.0.0.1:${enginePort}`, { connections: 1 });
  const pools = started.map(
    (via) => new Pool(via.url, { connections: 16, keepAliveTimeout: 4_000 }),
  );
  try {
    const times = runs.map(() => [] as number[]);
    const cpu = runs.map(() => [] as number[]);
    const engine: number[] = [];
    for (let round = 0; round < 50 + samples; round += 1) {
      const alone = await once(direct, '');
      if (round >= 50) {
        engine.push(alone);
      }
      for (let offset = 0; offset < runs.length; offset += 1) {
        const index = (round + offset) % runs.length;
        const took = await once(pools[index] as Pool, runs[index]?.token ?? '');
        if (round >= 50) {
          times[index]?.push(took);
        }
      }
    }
    for (let pass = 0; pass < 4; pass += 1) {
      for (let offset = 0; offset < runs.length; offset += 1) {
        const index = (pass + offset) % runs.length;
        cpu[index]?.push(
          await cpuPerRequest(
            pools[index] as Pool,
            started[index] as Gateway,
            runs[index]?.token ?? '',
            loadRequests,
          ),
        );
      }
    }
    const engineP50 = percentile(engine, 50);
    return runs.map((run, index) => ({
      label: run.label,
      p50Ms: percentile(times[index] ?? [], 50),
      addedP50Ms: percentile(times[index] ?? [], 50) - engineP50,
      // The least pass: on a shared machine a pass can only be slowed by other work.
      cpuPerRequestMs: Math.min(...(cpu[index] ?? [])),
    }));
  } finally {
    await Promise.all([direct, ...pools].map((pool) => pool.close()));
    for (const via of started) {
      await stopChild(via.child);
    }
    await stopChild(node.child);
  }
}

const PRIORITIES = ['high', 'normal', 'low'] as const;

async function shares(
  repoRoot: string,
  work: string,
  backlog: number,
): Promise<Record<(typeof PRIORITIES)[number], number> & { counted: number }> {
  const node = await serving(repoRoot, work, 'one', 'slots:1,hold:20', 1);
  const top = [
    `queue: {max: ${backlog * 3 + 8}, timeout: 10m}`,
    'callers:',
    ...PRIORITIES.map(
      (priority) =>
        `  - {name: ${priority}, tokenSha256: "${sha(callerToken(priority.length))}", priority: ${priority}}`,
    ),
  ];
  const via = await gateway(repoRoot, work, 'shares', fleetText(top, [node]));
  try {
    await startVia(via, node);
    const order: string[] = [];
    const pool = new Pool(via.url, { connections: backlog * 3 + 8 });
    await Promise.all(
      Array.from({ length: backlog }).flatMap(() =>
        PRIORITIES.map(async (priority) => {
          await once(pool, callerToken(priority.length));
          order.push(priority);
        }),
      ),
    );
    await pool.close();
    // While all three wait: until the high caller's backlog is spent (4 of every 7 are its).
    const counted = Math.floor((backlog * 7) / 4) - 7;
    const first = order.slice(0, counted);
    const count = (priority: string): number => first.filter((each) => each === priority).length;
    return { high: count('high'), normal: count('normal'), low: count('low'), counted };
  } finally {
    await stopChild(via.child);
    await stopChild(node.child);
  }
}

export async function benchCallers(
  repoRoot: string,
  samples = 1_000,
  loadRequests = 2_000,
  backlog = 80,
): Promise<CallersBench> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-callers-'));
  try {
    const cost = await costs(repoRoot, work, samples, loadRequests);
    const { counted, ...shared } = await shares(repoRoot, work, backlog);
    return {
      cost,
      samples,
      loadRequests,
      shares: shared,
      counted,
      backlog,
      load: [loadAtStart, loadavg()[0] ?? Number.NaN],
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
