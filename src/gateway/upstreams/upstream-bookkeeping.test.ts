/**
 * An upstream node's reply kept as an engine's is (upstream-relay.ts): the tap hears what reaches
 * the caller (usage), the facts say when it answered and whether it failed, and RelayCuts ends a
 * stream with the SSE error event a local one gets (docs/design.md D33).
 */
import type { RequestListener } from 'node:http';

import { describe, expect, it } from 'vitest';

import { serveLoopback } from '../../../test/support/http/http-server.ts';
import { RelayCuts, shuttingDown } from '../relay/relay-cuts.ts';
import type { RelayFacts } from '../relay/upstream-reply.ts';
import { ReplyTail } from '../usage/reply-usage.ts';
import { relayUpstream } from './upstream-relay.ts';

const USAGE = '{"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}';

interface Books {
  readonly facts: RelayFacts;
  readonly tail: ReplyTail;
  readonly cuts: RelayCuts;
}

/** A gateway-like server relaying every request to the upstream `handler` serves. */
async function gatewayOver(handler: RequestListener): Promise<[string, Books]> {
  const upstream = await serveLoopback(handler);
  const books: Books = { facts: {}, tail: new ReplyTail(), cuts: new RelayCuts() };
  const base = await serveLoopback((incoming, outgoing) => {
    incoming.resume();
    incoming.on('end', () => {
      void relayUpstream(
        { name: 'hosted', url: `${upstream}/v1`, models: { big: 'big' }, timeoutMs: 60_000 },
        {
          incoming,
          outgoing,
          body: Buffer.from('{"model":"big"}'),
          model: 'big',
          extraHeaders: [],
          facts: books.facts,
          tap: books.tail,
          cuts: books.cuts,
        },
      ).catch(() => outgoing.writeHead(502).end());
    });
  });
  return [`${base}/v1/chat/completions`, books];
}

const post = (url: string): Promise<Response> =>
  fetch(url, { method: 'POST', body: '{"model":"big"}' });

describe('an upstream reply’s bookkeeping', () => {
  it('lets the tap read the usage, and says when the reply began', async () => {
    const [url, books] = await gatewayOver((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(USAGE);
    });
    const before = performance.now();
    const reply = await post(url);
    expect(await reply.text()).toBe(USAGE);
    expect(books.tail.usage()).toMatchObject({ promptTokens: 7, completionTokens: 3 });
    expect(books.facts.repliedAt).toBeGreaterThanOrEqual(before);
    expect(books.facts.upstreamError).toBeUndefined();
  });

  it('marks a failure against the node', async () => {
    const [url, books] = await gatewayOver((_request, response) => {
      response.writeHead(500).end('{}');
    });
    expect((await post(url)).status).toBe(502);
    expect(books.facts.upstreamError).toBe(true);
  });

  it('ends a stream the gateway cuts with one SSE error event saying why', async () => {
    const [url, books] = await gatewayOver((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"n":1}\n\n');
    });
    const reply = await post(url);
    const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    await books.cuts.cut(shuttingDown());
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      text += decoder.decode(part.value);
    }
    expect(text.startsWith('data: {"n":1}\n\n')).toBe(true);
    expect(text).toContain('"code":"shutting_down"');
    expect(books.facts.stopped).toBe(true);
    expect(books.facts.upstreamError).toBeUndefined();
  });
});
