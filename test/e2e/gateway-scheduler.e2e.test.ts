/**
 * The gateway's scheduler end to end (docs/design.md D25): the built gateway over two real daemons,
 * each running the real llama-server on the tiny model with `PARALLEL 1` (one request slot each),
 * and `queue: {max: 1}`, `prefer: active`. One fleet serves every test; each leaves both slots
 * free.
 *
 * A slot is held by a stream this file controls: the engine runs with context shift on and the
 * request ignores end-of-sequence, so its generation never ends on its own (llama-server without
 * context shift ends it, finish_reason "length", once the slot's 2,048-token context is full); the
 * stream is read and dropped while held, and aborted to free the slot (llama-server cancels a
 * request whose caller hung up). Whether an engine took a request is read from its own log: llama-server writes one
 * `launch_slot_` line per request it starts and one `stop processing` line per request it ends.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parsePrometheus, sampleValue } from '../../src/core/metrics/prometheus.ts';
import { chat } from '../support/http/chat.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import {
  authorized,
  ENGINE_KEY,
  type GatewayFleet,
  startGatewayFleet,
} from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const MODEL = 'tiny';
const NODES = ['a', 'b'] as const;

let fleet: GatewayFleet;

/** A chat for MODEL through the gateway; `fields` over the short chat's. */
function ask(fields: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return chat(fleet.url, { model: MODEL, ...fields }, { headers: authorized(), signal });
}

/** One node's engine log as the daemon keeps it. */
async function engineLog(node: string): Promise<string> {
  try {
    return await readFile(join(fleet.dir, `config-${node}`, 'daemon', 'engine.log'), 'utf8');
  } catch {
    return '';
  }
}

/** Requests the node's engine started and ended, from its log. */
async function engineCounts(node: string): Promise<{ started: number; ended: number }> {
  const log = await engineLog(node);
  return {
    started: (log.match(/launch_slot_: .*processing task/g) ?? []).length,
    ended: (log.match(/stop processing:/g) ?? []).length,
  };
}

/** Requests each node's engine has started, by node. */
async function startedByNode(): Promise<Record<string, number>> {
  const counts = await Promise.all(NODES.map(async (node) => (await engineCounts(node)).started));
  return Object.fromEntries(NODES.map((node, index) => [node, counts[index] ?? 0]));
}

/** `before` with one more request started on `node`: where the waiting request went. */
function oneMoreOn(before: Record<string, number>, node: string): Record<string, number> {
  return { ...before, [node]: (before[node] ?? 0) + 1 };
}

/** Waits until the node's engine (every engine when none is named) has no request in a slot. */
async function idle(...nodes: string[]): Promise<void> {
  for (const node of nodes.length === 0 ? NODES : nodes) {
    await eventually(
      () => engineCounts(node),
      ({ started, ended }) => started === ended,
      `node ${node}'s engine to have no request in its slot`,
    );
  }
}

/** Requests waiting in the gateway for a slot or a wake, from its metrics. */
async function waiting(): Promise<number | undefined> {
  const reply = await fetch(`${fleet.url}/metrics`, { headers: authorized() });
  return sampleValue(parsePrometheus(await reply.text()), 'svc_gateway_requests_waiting_on_wake');
}

interface Hold {
  readonly node: string;
  /** Hangs up and waits until the engine has let the request go. */
  release(): Promise<void>;
}

/** Takes one slot with a stream that never ends on its own, until released. */
async function hold(): Promise<Hold> {
  const abort = new AbortController();
  const reply = await ask(
    { stream: true, max_tokens: 1_000_000, ignore_eos: true, temperature: 0 },
    abort.signal,
  );
  expect(reply.status).toBe(200);
  // Placed at once: a request that waited 2 s would have had its headers before any node.
  const node = reply.headers.get('x-svc-node') ?? '';
  expect(NODES).toContain(node);
  await eventually(
    () => engineCounts(node),
    ({ started, ended }) => started > ended,
    `node ${node}'s engine to start the held request`,
  );
  // Read and dropped as it comes, so nothing backs up into the engine while it is held.
  const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
  const drained = (async () => {
    for (;;) {
      const { done } = await reader.read();
      if (done) {
        return;
      }
    }
  })().catch(() => undefined);
  return {
    node,
    async release() {
      abort.abort();
      await reader.cancel().catch(() => undefined);
      await drained;
      await idle(node);
    },
  };
}

/** Reads a streamed reply until its text so far matches `pattern`, or to its end without one. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pattern?: RegExp,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while (pattern === undefined || !pattern.test(text)) {
    const { done, value } = await reader.read();
    if (done && pattern === undefined) {
      return text;
    }
    if (done) {
      throw new Error(`the stream ended before ${String(pattern)}: ${text}`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

const QUEUED = new RegExp(`: queued for ${MODEL}: position 1 \\(\\d+ s\\)\\n\\n`);

beforeAll(async () => {
  fleet = await sharedByFile(async () => {
    const model = await writeTinyModel(join(await tempDir(), 'tiny.gguf'));
    const svcfile = [
      'PROVIDER llamacpp',
      `MODEL ${model}`,
      `ALIAS ${MODEL}`,
      'PARALLEL 1',
      'PRESET tiny.ini',
      'BASEURL 127.0.0.1:{port}',
      '',
    ].join('\n');
    // Flags, not ENV lines: a node started through the gateway gets its Svcfile's deploy config,
    // which carries no environment. Context shift keeps an endless generation going; one thread
    // each is all the tiny model needs (two, on a loaded 2-core machine, crawl).
    const preset = `[${MODEL}]\ncontext-shift = on\nthreads = 1\n`;
    return startGatewayFleet(
      NODES.map((name) => ({ name, svcfile, files: { 'tiny.ini': preset } })),
      // prefer: active would put every request on the busiest node: only its full slot sends
      // the next one elsewhere.
      { top: ['queue: {max: 1}', 'prefer: active'] },
    );
  });
  // Both engines run before any request: with scaleOut off, a request wakes one node only.
  for (const node of NODES) {
    const reply = await fetch(`${fleet.url}/v1/fleet/nodes/${node}/start`, {
      method: 'POST',
      headers: authorized(),
    });
    expect(reply.status, await reply.text()).toBeLessThan(300);
  }
  await eventually(
    async () =>
      (
        (await (await fetch(`${fleet.url}/v1/fleet`, { headers: authorized() })).json()) as {
          nodes: { name: string; state: string; ready?: string }[];
        }
      ).nodes,
    (nodes) => nodes.every((node) => node.state === 'running' && node.ready === 'ready'),
    'both nodes running and ready as the gateway sees them',
    { timeoutMs: 60_000 },
  );
});

afterAll(endSharedByFile);

describe('the gateway scheduler over two one-slot llama-server nodes', () => {
  it('spills a second concurrent stream over to the other node', async () => {
    const first = await hold();
    const second = await hold();
    expect([first.node, second.node].sort()).toEqual(['a', 'b']);
    await first.release();
    await second.release();
  });

  it('queues one request while both slots are held, refuses the next with 429, then streams the queued one', async () => {
    const [first, second] = [await hold(), await hold()];
    const abort = new AbortController();
    const queued = await ask({ stream: true, max_tokens: 8 }, abort.signal);
    // docs/design.md D25: a stream that has waited 2 s gets its headers and a comment with its
    // place.
    expect(queued.status).toBe(200);
    expect(queued.headers.get('content-type')).toContain('text/event-stream');
    const reader = (queued.body as ReadableStream<Uint8Array>).getReader();
    const before = await readUntil(reader, QUEUED);
    expect(before).not.toContain('data:');

    const refused = await ask({ max_tokens: 8 });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(Number(refused.headers.get('retry-after')))).toBe(true);
    const { error } = (await refused.json()) as {
      error: { message: string; type: string; code: string };
    };
    expect(error).toMatchObject({ type: 'rate_limit_error', code: 'queue_full' });
    expect(typeof error.message).toBe('string');

    // A slot frees: the queued stream goes on there, with its engine's own stream.
    const startedBefore = await startedByNode();
    await first.release();
    const rest = await readUntil(reader);
    const events = rest
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((data) => JSON.parse(data) as { object: string });
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(await startedByNode()).toEqual(oneMoreOn(startedBefore, first.node));
    await second.release();
    await idle();
  });

  // A non-streamed request: a stream that waits 2 s has its headers sent before it is placed, so
  // neither its node nor its wait can be in them.
  it('says how long a request waited in its reply Server-Timing', async () => {
    const [first, second] = [await hold(), await hold()];
    const reply = ask({ max_tokens: 4 });
    await eventually(waiting, (count) => count === 1, 'the request to wait for a slot');
    await first.release();
    const answered = await reply;
    expect(answered.status).toBe(200);
    expect(answered.headers.get('x-svc-node')).toBe(first.node);
    expect(answered.headers.get('server-timing')).toMatch(/(^|, )queue;dur=\d+(,|$)/);
    expect(((await answered.json()) as { object: string }).object).toBe('chat.completion');
    await second.release();
    await idle();
  });

  it('takes a waiting caller that hangs up out of the queue at once; no engine sees its request', async () => {
    const [first, second] = [await hold(), await hold()];
    const startedBefore = await startedByNode();

    const abandon = new AbortController();
    const abandoned = await ask({ stream: true, max_tokens: 8 }, abandon.signal);
    expect(abandoned.status).toBe(200);
    await readUntil((abandoned.body as ReadableStream<Uint8Array>).getReader(), QUEUED);
    abandon.abort();
    await eventually(waiting, (count) => count === 0, 'the abandoned request to leave the queue');

    // With `queue: {max: 1}` a request still counted would make this one a 429; it is first.
    const next = await ask({ stream: true, max_tokens: 8 });
    expect(next.status).toBe(200);
    const reader = (next.body as ReadableStream<Uint8Array>).getReader();
    await readUntil(reader, QUEUED);
    await first.release();
    expect(await readUntil(reader)).toContain('data: [DONE]');
    await second.release();
    await idle();
    // Only the request that stayed reached an engine: the one released.
    expect(await startedByNode()).toEqual(oneMoreOn(startedBefore, first.node));
  });

  it('answers through the gateway exactly as the engine answers directly', async () => {
    // Greedy, seeded, and without the prompt cache, so both replies are computed the same way.
    const request = { max_tokens: 16, temperature: 0, seed: 42, cache_prompt: false };
    const viaGateway = await ask(request);
    expect(viaGateway.status).toBe(200);
    const node = viaGateway.headers.get('x-svc-node') ?? '';
    const status = await fleet.daemons[node]?.call('GET', '/v1/status');
    const port = (status?.json['engine'] as { port: number } | undefined)?.port;
    expect(port).toBeGreaterThan(0);
    const direct = await chat(
      `http://127.0.0.1:${String(port)}`,
      { model: MODEL, ...request },
      { headers: { authorization: `Bearer ${ENGINE_KEY}` } },
    );
    expect(direct.status).toBe(200);
    type Completion = { choices: { message: { content: string }; finish_reason: string }[] };
    const [through, straight] = [
      (await viaGateway.json()) as Completion,
      (await direct.json()) as Completion,
    ];
    expect(through.choices[0]?.message.content).not.toBe('');
    expect(through.choices).toEqual(straight.choices);
  });
});
