/** The relay's decisions, driven through the engine client's handler calls by a scripted dispatcher. */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { ENGINE_REQUEST } from '../../../test/support/http/engine-request.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import {
  EngineClosedError,
  type EngineDispatcher,
  type EngineHandler,
  type EngineRequest,
  EngineRequestAbortedError,
  EngineTimeoutError,
} from './engine-client.ts';
import { replyHeaderList } from './engine-reply-headers.ts';
import { type RelayFacts, resendable, UpstreamReply } from './upstream-reply.ts';

/** The part of a ServerResponse the relay uses, recording what it was asked to do. */
class FakeResponse extends EventEmitter {
  headersSent = false;
  destroyed = false;
  writableFinished = false;
  status = 0;
  headers: unknown[] = [];
  written: string[] = [];
  ended = false;
  /** write() answers false (a slow reader) while this is set. */
  full = false;
  getHeaderNames(): string[] {
    return [];
  }
  writeHead(status: number, headers: unknown[]): void {
    this.status = status;
    this.headers = headers;
    this.headersSent = true;
  }
  write(chunk: Buffer): boolean {
    this.written.push(chunk.toString());
    return !this.full;
  }
  end(chunk?: string): void {
    if (chunk !== undefined) {
      this.written.push(chunk);
    }
    this.ended = true;
    this.writableFinished = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

type CoreCalls = EngineHandler;

/** Each dispatch hands the handler to the script, which plays the engine's side. */
function scripted(...attempts: ((handler: CoreCalls) => void)[]): {
  dispatcher: EngineDispatcher;
  calls: () => number;
  /** Whether each dispatch asked for a new connection. */
  fresh: (boolean | undefined)[];
} {
  let calls = 0;
  const fresh: (boolean | undefined)[] = [];
  const dispatcher: EngineDispatcher = {
    dispatch: (request, handler) => {
      const attempt = attempts[calls];
      calls += 1;
      fresh.push(request.freshConnection);
      queueMicrotask(() => attempt?.(handler));
    },
  };
  return { dispatcher, calls: () => calls, fresh };
}

function relay(
  outgoing: FakeResponse,
  dispatcher: EngineDispatcher,
  facts: RelayFacts = {},
  body?: EngineRequest['body'],
): UpstreamReply {
  return new UpstreamReply(
    outgoing as unknown as ServerResponse,
    { node: 'gpu-a', replyTimeoutMs: 1000, extraHeaders: ['x-svc-node', 'gpu-a'], facts },
    dispatcher,
    { ...ENGINE_REQUEST, headers: [], ...(body === undefined ? {} : { body }) },
  );
}

const socketClosed = (): Error => new EngineClosedError(false);
const answer = (handler: CoreCalls): void => {
  handler.onConnect(() => undefined);
  handler.onHeaders(
    200,
    ['Content-Type', 'text/event-stream', 'Connection', 'close'],
    () => undefined,
  );
  handler.onData(Buffer.from('data: 1\n\n'));
  handler.onComplete();
};

describe('UpstreamReply', () => {
  it('lets a tap hear each chunk it passes on, unchanged (docs/design.md D29 usage)', async () => {
    const outgoing = new FakeResponse();
    const heard: string[] = [];
    const { dispatcher } = scripted((handler) => {
      handler.onConnect(() => undefined);
      handler.onHeaders(200, ['Content-Type', 'text/event-stream'], () => undefined);
      handler.onData(Buffer.from('data: 1\n\n'));
      handler.onData(Buffer.from('data: {"timings":{}}\n\n'));
      handler.onComplete();
    });
    const target = {
      node: 'gpu-a',
      replyTimeoutMs: 1000,
      extraHeaders: [],
      facts: {},
      tap: { data: (chunk: Buffer) => heard.push(chunk.toString()) },
    };
    const options = {
      origin: 'http://127.0.0.1:1',
      path: '/v1/x',
      method: 'POST',
      headers: [],
      body: '{}',
      headersTimeout: 0,
      bodyTimeout: 0,
    };
    const reply = new UpstreamReply(
      outgoing as unknown as ServerResponse,
      target,
      dispatcher,
      options,
    );
    expect(await reply.start()).toBeUndefined();
    expect(heard).toEqual(['data: 1\n\n', 'data: {"timings":{}}\n\n']);
    expect(outgoing.written).toEqual(heard);
  });

  it('sends once more when the kept connection had closed before any reply byte', async () => {
    const outgoing = new FakeResponse();
    const { dispatcher, calls, fresh } = scripted(
      (handler) => handler.onError(socketClosed()),
      answer,
    );
    const facts: RelayFacts = {};
    expect(await relay(outgoing, dispatcher, facts).start()).toBeUndefined();
    expect(calls()).toBe(2);
    // Another kept connection may be as dead as the first: the resend opens a new one.
    expect(fresh).toEqual([undefined, true]);
    // The resent request answered: the metrics see a reply, not an engine failure.
    expect(facts).toEqual({ repliedAt: expect.any(Number) as number });
    expect(outgoing.status).toBe(200);
    expect(outgoing.headers).toEqual(['Content-Type', 'text/event-stream', 'x-svc-node', 'gpu-a']);
    expect(outgoing.written).toEqual(['data: 1\n\n']);
    expect(outgoing.ended).toBe(true);
  });

  it('sends at most once more, then refuses naming the node', async () => {
    const outgoing = new FakeResponse();
    const fail = (handler: CoreCalls): void => handler.onError(socketClosed());
    const { dispatcher, calls } = scripted(fail, fail, fail);
    const facts: RelayFacts = {};
    const refusal = await relay(outgoing, dispatcher, facts).start();
    expect(calls()).toBe(2);
    expect(facts).toEqual({ upstreamError: true });
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal?.status).toBe(502);
    expect(refusal?.message).toContain('the engine on gpu-a failed to answer');
  });

  it('never resends a streamed form body: it is gone once sent (docs/design.md D31 "Forms")', async () => {
    const fail = (handler: CoreCalls): void => handler.onError(socketClosed());
    const { dispatcher, calls } = scripted(fail, answer);
    const body = { first: Buffer.from('--b'), rest: new PassThrough() };
    const refusal = await relay(new FakeResponse(), dispatcher, {}, body).start();
    expect(calls()).toBe(1);
    expect(refusal?.status).toBe(502);
  });

  it('never resends once the reply began: the caller sees what was sent end', async () => {
    const outgoing = new FakeResponse();
    const { dispatcher, calls } = scripted((handler) => {
      handler.onHeaders(200, [], () => undefined);
      handler.onError(socketClosed());
    });
    const facts: RelayFacts = {};
    expect(await relay(outgoing, dispatcher, facts).start()).toBeUndefined();
    expect(calls()).toBe(1);
    expect(outgoing.destroyed).toBe(true);
    expect(facts).toEqual({ repliedAt: expect.any(Number) as number, upstreamError: true });
  });

  it('pauses the engine for a slow reader and resumes it on drain', async () => {
    const outgoing = new FakeResponse();
    outgoing.full = true;
    let resumed = 0;
    let paused: boolean | undefined;
    const { dispatcher } = scripted((handler) => {
      handler.onHeaders(200, [], () => (resumed += 1));
      paused = !handler.onData(Buffer.from('x'));
      outgoing.emit('drain');
      handler.onComplete();
    });
    await relay(outgoing, dispatcher).start();
    expect(paused).toBe(true);
    expect(resumed).toBe(1);
  });

  it('aborts the engine request when the caller leaves, and settles quietly', async () => {
    const outgoing = new FakeResponse();
    let aborted: Error | undefined;
    const { dispatcher } = scripted((handler) => {
      handler.onConnect((reason) => {
        aborted = reason;
        handler.onError(reason ?? new Error('aborted'));
      });
      handler.onHeaders(200, [], () => undefined);
      outgoing.emit('close');
    });
    expect(await relay(outgoing, dispatcher).start()).toBeUndefined();
    expect(aborted).toBeInstanceOf(EngineRequestAbortedError);
    expect(outgoing.listenerCount('close')).toBe(0);
  });
});

describe('reply headers and resend rule', () => {
  it('drops hop-by-hop, CORS and the gateway’s own headers, keeps repeats apart, appends its', () => {
    const raw = ['Set-Cookie', 'a=1', 'Keep-Alive', 'timeout=5', 'set-cookie', 'b=2'];
    expect(replyHeaderList(raw, ['x-svc-node', 'n'])).toEqual([
      'Set-Cookie',
      'a=1',
      'set-cookie',
      'b=2',
      'x-svc-node',
      'n',
    ]);
    expect(replyHeaderList(['Access-Control-Allow-Origin', '*'], [])).toEqual([]);
    // A node that is itself a gateway: where the reply came from is this gateway's to say.
    const inner = ['X-Svc-Node', 'inner', 'x-svc-fallback', 'waking', 'Server-Timing', 'x;dur=1'];
    expect(replyHeaderList(inner, ['x-svc-node', 'n'])).toEqual(['x-svc-node', 'n']);
  });

  it('resends only a closed connection, only before the reply, only once', () => {
    expect(resendable(socketClosed(), false, false)).toBe(true);
    expect(resendable({ code: 'ECONNRESET' }, false, false)).toBe(true);
    expect(resendable(socketClosed(), true, false)).toBe(false);
    expect(resendable(socketClosed(), false, true)).toBe(false);
    expect(resendable({ code: 'ECONNREFUSED' }, false, false)).toBe(false);
    expect(resendable(new EngineTimeoutError('headers'), false, false)).toBe(false);
    // Closed after part of a head (or a 1xx) had come: the engine was answering, not stale.
    expect(resendable(new EngineClosedError(true), false, false)).toBe(false);
  });
});
