/**
 * The relay to an upstream node (docs/design.md D30), against a fake OpenAI server: the key in
 * place of the caller's Authorization, the model renamed only where mapped, streaming through,
 * the upstream's 4xx passed on, and a GatewayError naming the node before the first byte only.
 */
import { EventEmitter } from 'node:events';
import { type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';

import { afterEach, describe, expect, it } from 'vitest';

import { type FakeOpenai, fakeOpenai } from '../../../test/support/fakes/fake-openai.ts';
import { serveRelay } from '../../../test/support/http/http-server.ts';
import type { GatewayError } from '../../core/http/gateway-error.ts';
import { relayUpstream } from './upstream-relay.ts';
import { upstreamBody, type UpstreamTarget } from './upstream-target.ts';

const KEY = 'sk-upstream-secret-42';
const fakes: FakeOpenai[] = [];

afterEach(async () => {
  for (const fake of fakes.splice(0)) {
    await fake.close();
  }
});

interface Outcome {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  readonly error?: GatewayError;
  readonly cut: boolean;
}

/** One request through a gateway-like server that relays it to `target`. */
async function through(target: UpstreamTarget, body: unknown, model: string): Promise<Outcome> {
  let failure: GatewayError | undefined;
  const base = await serveRelay(
    (incoming, outgoing, sent) =>
      relayUpstream(target, {
        incoming,
        outgoing,
        body: sent,
        model,
        extraHeaders: ['x-svc-node', target.name],
      }),
    (error) => {
      failure = error as GatewayError;
    },
  );
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      `${base}/v1/chat/completions`,
      { method: 'POST', headers: { authorization: 'Bearer caller-own-token' } },
      (reply) => {
        let text = '';
        reply.setEncoding('utf8');
        reply.on('data', (part: string) => (text += part));
        const done = (cut: boolean) => () =>
          resolve({
            status: reply.statusCode ?? 0,
            headers: reply.headers,
            body: text,
            cut,
            ...(failure === undefined ? {} : { error: failure }),
          });
        reply.on('end', done(false));
        reply.on('error', done(true));
      },
    );
    call.on('error', reject);
    call.end(JSON.stringify(body));
  });
}

async function target(extra: Partial<UpstreamTarget> = {}): Promise<[UpstreamTarget, FakeOpenai]> {
  const fake = await fakeOpenai();
  fakes.push(fake);
  return [
    {
      name: 'hosted',
      url: fake.url,
      apiKey: KEY,
      models: { big: 'vendor/big-70b', same: 'same' },
      timeoutMs: 60_000,
      ...extra,
    },
    fake,
  ];
}

describe('relayUpstream', () => {
  it("sends the node's key in place of the caller's, and the mapped id as model", async () => {
    const [node, fake] = await target();
    const reply = await through(node, { model: 'big', messages: [] }, 'big');
    expect(reply.status).toBe(200);
    expect(reply.headers['x-svc-node']).toBe('hosted');
    expect(fake.seen).toEqual([
      expect.objectContaining({
        path: '/v1/chat/completions',
        authorization: `Bearer ${KEY}`,
        model: 'vendor/big-70b',
      }),
    ]);
  });

  it('sends no Authorization at all to a node without a key', async () => {
    const [node, fake] = await target();
    const { apiKey: _none, ...keyless } = node;
    await through(keyless, { model: 'same' }, 'same');
    expect(fake.seen[0]?.authorization).toBeUndefined();
  });

  it('relays an unmapped body byte for byte', () => {
    const body = Buffer.from('{"model":"same",  "x":1}');
    expect(
      upstreamBody(
        { name: 'h', url: 'http://h/v1', models: { same: 'same' }, timeoutMs: 1 },
        'same',
        body,
      ),
    ).toBe(body);
  });

  it('streams the reply through as it comes', async () => {
    const [node, fake] = await target();
    fake.answer = { kind: 'stream', chunks: ['{"a":1}', '{"a":2}'] };
    const reply = await through(node, { model: 'big', stream: true }, 'big');
    expect(reply.headers['content-type']).toBe('text/event-stream');
    expect(reply.body).toBe('data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\n');
  });

  it("passes the upstream's own 4xx through with its status, body and x-svc-node", async () => {
    const [node, fake] = await target();
    const refusal = { error: { message: 'invalid model', type: 'invalid_request_error' } };
    fake.answer = { kind: 'json', status: 404, body: refusal };
    const reply = await through(node, { model: 'big' }, 'big');
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body)).toEqual(refusal);
    expect(reply.headers['x-svc-node']).toBe('hosted');
  });

  it('fails before the first byte with a 502 naming the node: a 5xx, or nothing listening', async () => {
    const [node, fake] = await target();
    fake.answer = { kind: 'json', status: 503, body: { error: 'overloaded' } };
    const failed = await through(node, { model: 'big' }, 'big');
    expect(failed.error).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(failed.error?.message).toContain('upstream node "hosted" failed');
    const gone = await through({ ...node, url: 'http://127.0.0.1:9/v1' }, { model: 'big' }, 'big');
    expect(gone.error).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(gone.error?.message).toContain('upstream node "hosted" is unreachable');
    expect(JSON.stringify([failed, gone])).not.toContain(KEY);
  });

  it("answers 504 naming the node past the node's timeout", async () => {
    const [node, fake] = await target({ timeoutMs: 200 });
    fake.answer = { kind: 'hang' };
    const reply = await through(node, { model: 'big' }, 'big');
    expect(reply.error).toMatchObject({ status: 504, code: 'reply_timeout' });
    expect(reply.error?.message).toContain('upstream node "hosted"');
  });

  it('cuts a stream that breaks after its first byte, and rejects nothing (no retry)', async () => {
    const [node, fake] = await target();
    fake.answer = { kind: 'stream', chunks: ['{"a":1}', '{"a":2}'], cutAfter: 1 };
    const reply = await through(node, { model: 'big', stream: true }, 'big');
    expect(reply.error).toBeUndefined();
    expect(reply.body).toBe('data: {"a":1}\n\n');
    expect(fake.seen).toHaveLength(1);
  });

  it('reads no further while the caller has not taken what was written', async () => {
    const [node, fake] = await target();
    // Large enough to reach the relay as several reads, whatever the sockets coalesce.
    const big = JSON.stringify({ a: 'x'.repeat(200_000) });
    fake.answer = { kind: 'stream', chunks: [big, big, big] };
    // A caller whose buffer is always full: each write asks the relay to wait for 'drain'.
    const writes: unknown[] = [];
    const caller = Object.assign(new EventEmitter(), {
      headersSent: false,
      writableFinished: false,
      writableEnded: false,
      destroyed: false,
      getHeaderNames: () => [],
      writeHead: () => caller,
      write: (chunk: unknown) => writes.push(chunk) < 0,
      end: () => {
        caller.writableEnded = caller.writableFinished = true;
      },
      destroy: () => {
        caller.destroyed = true;
      },
    });
    const incoming = { url: '/v1/chat/completions', rawHeaders: [], socket: { destroyed: false } };
    const relayed = relayUpstream(node, {
      incoming: incoming as unknown as IncomingMessage,
      outgoing: caller as unknown as ServerResponse,
      body: Buffer.from('{"model":"big","stream":true}'),
      model: 'big',
      extraHeaders: [],
    });
    await until(() => writes.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(writes).toHaveLength(1);
    while (!caller.writableEnded) {
      caller.emit('drain');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await relayed;
    expect(writes.length).toBeGreaterThan(1);
  });
});

async function until(ready: () => boolean): Promise<void> {
  while (!ready()) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
