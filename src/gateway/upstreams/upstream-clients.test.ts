/**
 * Which client relays to an upstream node (docs/design.md D30): an `http` URL the gateway's own
 * engine client, an `https` one undici; and what the engine client does for a node that it does
 * not for an engine: the URL's path in place of `/v1`, the node's `timeout` over the whole reply,
 * streams included, and the gateway's own `x-svc-node` in place of one the node sent.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it, onTestFinished, vi } from 'vitest';

import { fakeOpenai, selfSignedTls } from '../../../test/support/fakes/fake-openai.ts';
import { serveLoopback, serveRelay } from '../../../test/support/http/http-server.ts';
import type { RelayFacts } from '../relay/upstream-reply.ts';
import { relayUpstream, upstreamClient } from './upstream-relay.ts';
import type { UpstreamTarget } from './upstream-target.ts';

const KEY = 'sk-upstream-secret-42';

/** A gateway-like server relaying every request to `target`; a refusal answers its status. */
async function gatewayTo(target: UpstreamTarget, facts: RelayFacts = {}): Promise<string> {
  const base = await serveRelay((incoming, outgoing, body) =>
    relayUpstream(target, {
      incoming,
      outgoing,
      body,
      model: 'big',
      extraHeaders: ['x-svc-node', target.name],
      facts,
    }),
  );
  return `${base}/v1/chat/completions`;
}

function node(url: string, extra: Partial<UpstreamTarget> = {}): UpstreamTarget {
  return {
    name: 'hosted',
    url,
    apiKey: KEY,
    models: { big: 'vendor/big' },
    timeoutMs: 60_000,
    ...extra,
  };
}

const post = (url: string): Promise<Response> =>
  fetch(url, { method: 'POST', body: '{"model":"big"}' });

/** An upstream answering every request with `handler`, recording the paths it was asked. */
async function recording(handler: RequestListener): Promise<[string, string[]]> {
  const paths: string[] = [];
  const base = await serveLoopback((request, response) => {
    paths.push(request.url ?? '');
    request.resume();
    request.on('end', () => handler(request, response));
  });
  return [base, paths];
}

describe('the client an upstream node gets', () => {
  it('is the engine client for an http URL, undici for an https one', () => {
    expect(upstreamClient('http://127.0.0.1:8000/v1')).toBe('engine-client');
    expect(upstreamClient('HTTP://gpu-box/v1')).toBe('engine-client');
    expect(upstreamClient('https://openrouter.ai/api/v1')).toBe('undici');
  });

  it("puts the URL's path, less a trailing slash, in place of the request's /v1", async () => {
    const [base, paths] = await recording((_request, response) => response.end('{}'));
    for (const url of [base, `${base}/`, `${base}/api/v1`, `${base}/api/v1/`]) {
      expect((await post(await gatewayTo(node(url)))).status).toBe(200);
    }
    expect(paths).toEqual([
      '/chat/completions',
      '/chat/completions',
      '/api/v1/chat/completions',
      '/api/v1/chat/completions',
    ]);
  });

  it("answers with the gateway's own x-svc-node, not one the node sent (a gateway itself)", async () => {
    const [base] = await recording((_request, response) => {
      response.writeHead(200, { 'x-svc-node': 'inner', 'server-timing': 'inner;dur=1' }).end('{}');
    });
    const reply = await post(await gatewayTo(node(`${base}/v1`)));
    expect(reply.headers.get('x-svc-node')).toBe('hosted');
    expect(reply.headers.get('server-timing')).toBeNull();
  });

  it("bounds a whole stream by the node's timeout: one still going past it is cut", async () => {
    const [base] = await recording((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // Never ends, never stalls: no gap limit would stop it.
      const beat = setInterval(() => response.write('data: {"n":1}\n\n'), 20);
      response.on('close', () => clearInterval(beat));
    });
    const facts: RelayFacts = {};
    const reply = await post(await gatewayTo(node(`${base}/v1`, { timeoutMs: 300 }), facts));
    expect(reply.status).toBe(200);
    await expect(reply.text()).rejects.toThrow();
    expect(facts.upstreamError).toBe(true);
  });

  it('relays an https node through undici with the same rules', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-https-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const { key, cert } = await selfSignedTls(dir);
    const fake = await fakeOpenai({ key, cert });
    onTestFinished(() => fake.close());
    const target = node(fake.url);
    // Untrusted, the certificate is refused by the TLS client, naming the node.
    const refused = await post(await gatewayTo(target));
    expect(refused.status).toBe(502);
    expect(await refused.text()).toContain(
      `upstream node "hosted" is unreachable at https://127.0.0.1`,
    );
    // Trusted (as NODE_EXTRA_CA_CERTS would), the key and the mapped id reach the node.
    vi.stubEnv('NODE_TLS_REJECT_UNAUTHORIZED', '0');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    fake.answer = { kind: 'json', status: 404, body: { error: { message: 'no such model' } } };
    const reply = await post(await gatewayTo(target));
    expect(reply.status).toBe(404);
    expect(reply.headers.get('x-svc-node')).toBe('hosted');
    expect(fake.seen.at(-1)).toMatchObject({ authorization: `Bearer ${KEY}`, model: 'vendor/big' });
  });
});
