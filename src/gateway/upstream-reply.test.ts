/** The relay's decisions, driven through undici's handler calls by a scripted dispatcher. */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

import { type Dispatcher, errors } from 'undici';
import { describe, expect, it } from 'vitest';

import { GatewayError } from './gateway-error.ts';
import { type RelayFacts, replyHeaderList, resendable, UpstreamReply } from './upstream-reply.ts';

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

/**
 * The handler calls undici's core makes (lib/core/request.js). Its types mark these names
 * deprecated in favour of onRequestStart/onResponse*, yet undici 7 still drives every handler
 * through them, adapting a new-style one on each call (upstream-reply.ts implements them).
 */
interface CoreCalls {
  onConnect(abort: (reason?: Error) => void): void;
  onHeaders(status: number, raw: Buffer[], resume: () => void, text: string): boolean;
  onData(chunk: Buffer): boolean;
  onComplete(trailers: Buffer[]): void;
  onError(error: Error): void;
}

/** Each dispatch hands the handler to the script, which plays the engine's side. */
function scripted(...attempts: ((handler: CoreCalls) => void)[]): {
  dispatcher: Dispatcher;
  calls: () => number;
} {
  let calls = 0;
  const dispatcher = {
    dispatch: (_options: unknown, handler: CoreCalls) => {
      const attempt = attempts[calls];
      calls += 1;
      queueMicrotask(() => attempt?.(handler));
      return true;
    },
  } as unknown as Dispatcher;
  return { dispatcher, calls: () => calls };
}

function relay(
  outgoing: FakeResponse,
  dispatcher: Dispatcher,
  facts: RelayFacts = {},
): UpstreamReply {
  return new UpstreamReply(
    outgoing as unknown as ServerResponse,
    { node: 'gpu-a', replyTimeoutMs: 1000, extraHeaders: ['x-svc-node', 'gpu-a'], facts },
    dispatcher,
    { origin: 'http://127.0.0.1:1', path: '/v1/chat/completions', method: 'POST' },
  );
}

const socketClosed = (): Error => new errors.SocketError('other side closed');
const answer = (handler: CoreCalls): void => {
  handler.onConnect(() => undefined);
  handler.onHeaders(
    200,
    [
      Buffer.from('Content-Type'),
      Buffer.from('text/event-stream'),
      Buffer.from('Connection'),
      Buffer.from('close'),
    ],
    () => undefined,
    'OK',
  );
  handler.onData(Buffer.from('data: 1\n\n'));
  handler.onComplete([]);
};

describe('UpstreamReply', () => {
  it('sends once more when the kept connection had closed before any reply byte', async () => {
    const outgoing = new FakeResponse();
    const { dispatcher, calls } = scripted((handler) => handler.onError(socketClosed()), answer);
    const facts: RelayFacts = {};
    expect(await relay(outgoing, dispatcher, facts).start()).toBeUndefined();
    expect(calls()).toBe(2);
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

  it('never resends once the reply began: the caller sees what was sent end', async () => {
    const outgoing = new FakeResponse();
    const { dispatcher, calls } = scripted((handler) => {
      handler.onHeaders(200, [], () => undefined, 'OK');
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
      handler.onHeaders(200, [], () => (resumed += 1), 'OK');
      paused = !handler.onData(Buffer.from('x'));
      outgoing.emit('drain');
      handler.onComplete([]);
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
      handler.onHeaders(200, [], () => undefined, 'OK');
      outgoing.emit('close');
    });
    expect(await relay(outgoing, dispatcher).start()).toBeUndefined();
    expect(aborted).toBeInstanceOf(errors.RequestAbortedError);
    expect(outgoing.listenerCount('close')).toBe(0);
  });
});

describe('reply headers and resend rule', () => {
  it('drops hop-by-hop and CORS headers, keeps repeats apart, appends the gateway’s', () => {
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
  });

  it('resends only a closed connection, only before the reply, only once', () => {
    expect(resendable(socketClosed(), false, false)).toBe(true);
    expect(resendable({ code: 'ECONNRESET' }, false, false)).toBe(true);
    expect(resendable(socketClosed(), true, false)).toBe(false);
    expect(resendable(socketClosed(), false, true)).toBe(false);
    expect(resendable({ code: 'ECONNREFUSED' }, false, false)).toBe(false);
    expect(resendable(new errors.HeadersTimeoutError(), false, false)).toBe(false);
  });
});
