/**
 * The gateway ending a relay itself (docs/design.md D33), over a real HTTP connection to the
 * caller: the engine's side is scripted through the engine client's handler calls.
 */
import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { ENGINE_REQUEST } from '../../../test/support/http/engine-request.ts';
import type { GatewayError } from '../../core/http/gateway-error.ts';
import type { EngineDispatcher, EngineHandler } from './engine-client.ts';
import { nodeStopped, RelayCuts, shuttingDown } from './relay-cuts.ts';
import { type RelayFacts, UpstreamReply } from './upstream-reply.ts';

interface Relayed {
  readonly relay: UpstreamReply;
  readonly facts: RelayFacts;
  readonly done: Promise<GatewayError | undefined>;
  /** Whether the engine request was aborted. */
  aborted: boolean;
}

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) {
    close();
  }
});

/**
 * A caller's request through a relay whose engine answers `headers` and one chunk (`sent`), then holds
 * the reply open; `text` is what the caller received by the time its connection ended,
 * `received` settles with the first chunk there.
 */
async function relayed(
  node: string,
  headers: string[] | undefined,
  sent = 'data: {"n":1}\n\n',
): Promise<{ relayed: Relayed; text: Promise<string>; received: Promise<void> }> {
  let made!: (value: Relayed) => void;
  const ready = new Promise<Relayed>((resolve) => {
    made = resolve;
  });
  const server = createServer((_request, response: ServerResponse) => {
    const facts: RelayFacts = {};
    const dispatcher: EngineDispatcher = {
      dispatch: (_options, handler: EngineHandler) => {
        queueMicrotask(() => {
          engine(handler);
        });
      },
    };
    const engine = (handler: EngineHandler): void => {
      handler.onConnect(() => {
        state.aborted = true;
      });
      if (headers !== undefined) {
        handler.onHeaders(200, headers, () => undefined);
        handler.onData(Buffer.from(sent));
      }
      made(state);
    };
    const relay = new UpstreamReply(
      response,
      { node, replyTimeoutMs: 1000, extraHeaders: [], facts },
      dispatcher,
      { ...ENGINE_REQUEST, headers: [] },
    );
    const state: Relayed = { relay, facts, done: relay.start(), aborted: false };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  const { port } = server.address() as AddressInfo;
  let heard!: () => void;
  const received = new Promise<void>((resolve) => {
    heard = resolve;
  });
  const text = new Promise<string>((resolve) => {
    const caller = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1' },
      (reply) => {
        let body = '';
        reply.setEncoding('utf8');
        reply.on('data', (chunk: string) => {
          body += chunk;
          heard();
        });
        reply.on('error', () => undefined);
        reply.on('close', () =>
          resolve(`${reply.statusCode} ${body}${reply.complete ? '' : '<cut>'}`),
        );
      },
    );
    caller.on('error', (error) => resolve(`no reply: ${error.message}`));
    caller.end('{}');
  });
  return { relayed: await ready, text, received };
}

describe('RelayCuts', () => {
  it('ends a stream mid-relay with one error event saying why, and aborts the engine', async () => {
    const cuts = new RelayCuts();
    const { relayed: one, text } = await relayed('gpu-a', ['Content-Type', 'text/event-stream']);
    cuts.track('gpu-a', one.relay);
    await cuts.cut(nodeStopped('gpu-a'), 'gpu-a');
    const events = (await text).split('\n\n');
    expect(events[0]).toBe('200 data: {"n":1}');
    expect(JSON.parse((events[1] ?? '').replace(/^data: /, ''))).toEqual({
      error: {
        message:
          'node "gpu-a" was stopped by the operator while it answered; retry to be served once it or another node serves the model',
        type: 'server_error',
        code: 'node_stopped',
      },
    });
    expect(events.slice(2)).toEqual(['']);
    expect(one.aborted).toBe(true);
    expect(one.facts.stopped).toBe(true);
    expect(await one.done).toBeUndefined();
  });

  it('puts its error event after the last whole event, never inside a half-sent one', async () => {
    const cuts = new RelayCuts();
    const { relayed: one, text } = await relayed(
      'gpu-a',
      ['Content-Type', 'text/event-stream'],
      'data: {"n":1}\n\ndata: {"n":2,"cont',
    );
    cuts.track('gpu-a', one.relay);
    await cuts.cut(shuttingDown());
    const events = (await text).split('\n\n');
    expect(events[0]).toBe('200 data: {"n":1}');
    expect(JSON.parse((events[1] ?? '').replace(/^data: /, ''))).toMatchObject({
      error: { code: 'shutting_down' },
    });
    expect(events.slice(2)).toEqual(['']);
  });

  it('only closes a reply that is not a stream (its headers are gone)', async () => {
    const cuts = new RelayCuts();
    const {
      relayed: one,
      text,
      received,
    } = await relayed('gpu-a', ['Content-Type', 'application/json']);
    cuts.track('gpu-a', one.relay);
    await received;
    await cuts.cut(shuttingDown());
    expect(await text).toBe('200 data: {"n":1}\n\n<cut>');
    expect(one.facts.stopped).toBe(true);
  });

  it('refuses a request the engine has not answered yet with the reason', async () => {
    const cuts = new RelayCuts();
    const { relayed: one } = await relayed('gpu-a', undefined);
    cuts.track('gpu-a', one.relay);
    // The proxy throws the refusal, and the gateway answers it (app.ts fail).
    await cuts.cut(shuttingDown());
    expect((await one.done)?.code).toBe('shutting_down');
    expect(one.aborted).toBe(true);
  });

  it("cuts only the named node's relays, and none that stopped being tracked", async () => {
    const cuts = new RelayCuts();
    const a = await relayed('gpu-a', ['Content-Type', 'text/event-stream']);
    const b = await relayed('gpu-b', ['Content-Type', 'text/event-stream']);
    const untrackA = cuts.track('gpu-a', a.relayed.relay);
    cuts.track('gpu-b', b.relayed.relay);
    await cuts.cut(nodeStopped('gpu-b'), 'gpu-b');
    expect(b.relayed.facts.stopped).toBe(true);
    expect(a.relayed.facts.stopped).toBeUndefined();
    untrackA();
    await cuts.cut(shuttingDown());
    expect(a.relayed.facts.stopped).toBeUndefined();
    a.relayed.relay.onComplete();
    expect(await a.text).toBe('200 data: {"n":1}\n\n');
  });
});
