/**
 * The prompt cache kept across stops (docs/benchmarks.md "keepcache", docs/design.md D32): what a
 * woken node's first turn costs with and without `keepCache`. One gateway runs two local nodes on
 * the same model, `kept` (keepCache on) and `plain`; for each conversation size, each node in turn
 * takes the conversation's first turn, is stopped through the gateway (a graceful stop: `kept`
 * saves its slot), and takes the next turn, which wakes it. Real parts only: the built svc, the
 * real llama-server, all on 127.0.0.1.
 *
 * Figures per size (median of the rounds): the next turn's time to its first token (a one-token
 * reply, so the wake, the restore or the prefill, and one token), the engine's own prefill time
 * and `cache_n` for that turn, the stop's duration beside the save's own time (the gateway's
 * `engine slots saved` line), the restore's from its wake line, and the bytes the save wrote.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { request } from 'undici';

import { writeTinyModel } from '../../test/support/models/tiny-model.ts';
import { stopChildren, svcEnv, waitForLine } from '../support.ts';

/** Tokens one repetition of the conversation's sentence takes in the tiny model (measured). */
const TOKENS_PER_SENTENCE = 35;
const SENTENCE = 'hello world the model engine svc';
/** Context of the one slot: room for the 16k conversation and its next turn. */
export const BENCH_CONTEXT = 20_480;
/** The training context the bench's tiny model declares: llama-server caps its context at it. */
export const BENCH_TRAINED_CONTEXT = 32_768;

export interface TurnFigures {
  /** The woken turn: request sent → one-token reply, ms. */
  readonly firstTokenMs: number;
  /** The engine's own prefill of that turn (`timings.prompt_ms`) and what it took from cache. */
  readonly prefillMs: number;
  readonly cacheN: number;
  /** The graceful stop through the gateway, ms (a keepCache node's includes its save). */
  readonly stopMs: number;
  /** The engine's own time saving the slots, from the stop's log line (keepCache only), ms. */
  readonly saveMs?: number;
  /** The wake line's restore time (keepCache only), ms. */
  readonly restoreMs?: number;
  /** Bytes in the slot directory after the stop (keepCache only). */
  readonly bytes?: number;
}

export interface SizeFigures {
  readonly target: number;
  /** The first turn's prompt, in tokens, as the engine counted it. */
  readonly promptN: number;
  readonly kept: TurnFigures;
  readonly plain: TurnFigures;
}

export interface KeepCacheBench {
  readonly rounds: number;
  readonly sizes: readonly SizeFigures[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Reply {
  readonly content: string;
  readonly promptN: number;
  readonly promptMs: number;
  readonly cacheN: number;
}

async function chatTurn(url: string, model: string, messages: readonly object[]): Promise<Reply> {
  const reply = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, max_tokens: 1, temperature: 0 }),
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });
  const body = (await reply.body.json()) as {
    choices?: { message: { content: string } }[];
    timings?: { prompt_n?: number; prompt_ms?: number; cache_n?: number };
  };
  if (reply.statusCode !== 200) {
    throw new Error(`${model}: HTTP ${reply.statusCode}: ${JSON.stringify(body)}`);
  }
  return {
    content: body.choices?.[0]?.message.content ?? '',
    promptN: body.timings?.prompt_n ?? Number.NaN,
    promptMs: body.timings?.prompt_ms ?? Number.NaN,
    cacheN: body.timings?.cache_n ?? 0,
  };
}

async function nodeState(url: string, node: string): Promise<string | undefined> {
  const reply = await request(`${url}/v1/fleet`);
  const body = (await reply.body.json()) as { nodes: { name: string; state: string }[] };
  return body.nodes.find((entry) => entry.name === node)?.state;
}

async function stopNode(url: string, node: string): Promise<number> {
  const begun = performance.now();
  const reply = await request(`${url}/v1/fleet/nodes/${node}/stop`, { method: 'POST' });
  const text = await reply.body.text();
  if (reply.statusCode !== 200) {
    throw new Error(`stop ${node}: HTTP ${reply.statusCode}: ${text}`);
  }
  while ((await nodeState(url, node)) !== 'stopped') {
    await sleep(20);
  }
  return performance.now() - begun;
}

async function bytesIn(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir).catch(() => [])) {
    if (name.endsWith('.bin')) {
      total += (await stat(join(dir, name))).size;
    }
  }
  return total;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function medianTurn(turns: readonly TurnFigures[]): TurnFigures {
  const of = (pick: (turn: TurnFigures) => number | undefined): number =>
    median(turns.map((turn) => pick(turn) ?? Number.NaN));
  const restoreMs = of((turn) => turn.restoreMs);
  const saveMs = of((turn) => turn.saveMs);
  const bytes = of((turn) => turn.bytes);
  return {
    firstTokenMs: of((turn) => turn.firstTokenMs),
    prefillMs: of((turn) => turn.prefillMs),
    cacheN: of((turn) => turn.cacheN),
    stopMs: of((turn) => turn.stopMs),
    ...(Number.isNaN(saveMs) ? {} : { saveMs }),
    ...(Number.isNaN(restoreMs) ? {} : { restoreMs }),
    ...(Number.isNaN(bytes) ? {} : { bytes }),
  };
}

export async function benchKeepCache(
  repoRoot: string,
  targets: readonly number[],
  rounds: number,
  /** Each size's figures as soon as it is measured. */
  finished: (size: SizeFigures) => void = () => undefined,
): Promise<KeepCacheBench> {
  const work = await mkdtemp(join(tmpdir(), 'svc-keepcachebench-'));
  const children: ChildProcess[] = [];
  // The wake line (info) carries the restore's duration.
  const env = svcEnv(repoRoot, { SVC_API_TOKEN: '', SVC_LOG_LEVEL: 'info' });
  try {
    const model = await writeTinyModel(join(work, 'tiny-32k.gguf'), {
      contextLength: BENCH_TRAINED_CONTEXT,
    });
    for (const alias of ['kept', 'plain']) {
      await writeFile(
        join(work, `${alias}.svc`),
        `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\nCONTEXT ${BENCH_CONTEXT}\nPARALLEL 1\n`,
      );
    }
    const fleet = join(work, 'fleet.yaml');
    await writeFile(
      fleet,
      [
        'nodes:',
        '  - {name: kept, kind: local, file: kept.svc, keepCache: on}',
        '  - {name: plain, kind: local, file: plain.svc}',
        '',
      ].join('\n'),
    );
    const gateway = spawn(
      process.execPath,
      [join(repoRoot, 'dist', 'cli.js'), 'gateway', '--listen', '127.0.0.1:0', '-f', fleet],
      { env: { ...env, SVC_CONFIG_DIR: join(work, 'config') }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(gateway);
    let log = '';
    gateway.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    gateway.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const [, url = ''] = await waitForLine(gateway, /listening on (http:\/\/\S+)/);
    const [, nodesDir = ''] = /logs under (\S+)$/m.exec(log) ?? [];
    const slots = join(nodesDir, 'kept', 'slots');

    const once = async (
      node: string,
      prompt: string,
    ): Promise<TurnFigures & { promptN: number }> => {
      const first = await chatTurn(url, node, [{ role: 'user', content: prompt }]);
      const stopping = log.length;
      const stopMs = await stopNode(url, node);
      const bytes = node === 'kept' ? await bytesIn(slots) : undefined;
      const saved = /engine slots saved slots=\d+ bytes=\d+ ms=(\d+)/.exec(log.slice(stopping));
      const logged = log.length;
      const begun = performance.now();
      const next = await chatTurn(url, node, [
        { role: 'user', content: prompt },
        { role: 'assistant', content: first.content },
        { role: 'user', content: 'and the engine?' },
      ]);
      const firstTokenMs = performance.now() - begun;
      const woke = /node woke with its prompt cache node=kept .*ms=(\d+)/.exec(log.slice(logged));
      return {
        promptN: first.promptN + first.cacheN,
        firstTokenMs,
        prefillMs: next.promptMs,
        cacheN: next.cacheN,
        stopMs,
        ...(saved?.[1] === undefined ? {} : { saveMs: Number(saved[1]) }),
        ...(woke?.[1] === undefined ? {} : { restoreMs: Number(woke[1]) }),
        ...(bytes === undefined ? {} : { bytes }),
      };
    };

    const sizes: SizeFigures[] = [];
    for (const target of targets) {
      const prompt = Array.from(
        { length: Math.ceil(target / TOKENS_PER_SENTENCE) },
        () => SENTENCE,
      ).join(' ');
      const kept: TurnFigures[] = [];
      const plain: TurnFigures[] = [];
      let promptN = Number.NaN;
      for (let round = 0; round < rounds; round += 1) {
        // Interleaved, so a change in the machine's load touches both alike.
        const withCache = await once('kept', prompt);
        plain.push(await once('plain', prompt));
        kept.push(withCache);
        promptN = withCache.promptN;
      }
      const size = { target, promptN, kept: medianTurn(kept), plain: medianTurn(plain) };
      finished(size);
      sizes.push(size);
    }
    return { rounds, sizes };
  } finally {
    await stopChildren(children);
    await rm(work, { recursive: true, force: true });
  }
}
