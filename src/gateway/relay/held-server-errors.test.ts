/** docs/design.md D30 `failed`: a 5xx before any body byte becomes the relay's refusal. */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

import { describe, expect, it } from 'vitest';

import { ENGINE_REQUEST } from '../../../test/support/http/engine-request.ts';
import type { EngineDispatcher, EngineHandler } from './engine-client.ts';
import { holdingServerErrors } from './held-server-errors.ts';
import { type RelayFacts, UpstreamReply } from './upstream-reply.ts';

/** The part of a ServerResponse the relay uses, recording what reached the caller. */
class Caller extends EventEmitter {
  headersSent = false;
  destroyed = false;
  writableFinished = false;
  status = 0;
  written: string[] = [];
  getHeaderNames(): string[] {
    return [];
  }
  writeHead(status: number): void {
    this.status = status;
    this.headersSent = true;
  }
  write(chunk: Buffer): boolean {
    this.written.push(chunk.toString());
    return true;
  }
  end(chunk?: string): void {
    if (chunk !== undefined) {
      this.written.push(chunk);
    }
    this.writableFinished = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

/** An engine that answers `status` with a body, each attempt. */
function engine(status: number): EngineDispatcher & { calls: number } {
  const engine = {
    calls: 0,
    dispatch: (_request: unknown, handler: EngineHandler) => {
      engine.calls += 1;
      queueMicrotask(() => {
        handler.onConnect(() => undefined);
        handler.onHeaders(status, ['Content-Type', 'application/json'], () => undefined);
        handler.onData(Buffer.from('{"error":"engine"}'));
        handler.onComplete();
      });
    },
  };
  return engine;
}

async function relay(dispatcher: EngineDispatcher) {
  const caller = new Caller();
  const facts: RelayFacts = {};
  const refusal = await new UpstreamReply(
    caller as unknown as ServerResponse,
    { node: 'gpu-a', replyTimeoutMs: 1000, extraHeaders: [], facts },
    dispatcher,
    { ...ENGINE_REQUEST, headers: [] },
  ).start();
  return { caller, facts, refusal };
}

describe('holdingServerErrors', () => {
  it('turns a 5xx into a 502 naming the node and its status, with nothing sent', async () => {
    const held = engine(500);
    const { caller, facts, refusal } = await relay(holdingServerErrors(held));
    expect(refusal?.status).toBe(502);
    expect(refusal?.message).toBe('the engine on gpu-a failed to answer: it answered HTTP 500');
    expect(caller.headersSent).toBe(false);
    expect(caller.written).toEqual([]);
    expect(facts.upstreamError).toBe(true);
    expect(held.calls).toBe(1);
  });

  it('passes any other reply through as it is', async () => {
    for (const status of [200, 404]) {
      const { caller, refusal } = await relay(holdingServerErrors(engine(status)));
      expect(refusal).toBeUndefined();
      expect(caller.status).toBe(status);
      expect(caller.written).toEqual(['{"error":"engine"}']);
    }
  });

  it('leaves a 5xx to the caller where nothing holds it', async () => {
    const { caller, refusal } = await relay(engine(503));
    expect(refusal).toBeUndefined();
    expect(caller.status).toBe(503);
  });
});
