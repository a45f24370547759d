/** What the relay adds to a proxied reply, its time limits, and an engine error mid-stream. */
import { describe, expect, it } from 'vitest';

import { proxiedReplyHeaders, serverTiming } from '../http/reply-headers.ts';
import { upstreamTimeouts } from './proxy.ts';
import { engineErrorEvent } from './upstream-reply.ts';

describe('proxied reply headers and limits', () => {
  it('names the node and times the gateway and the wake', () => {
    expect(proxiedReplyHeaders('gpu-a', { gatewayMs: 0.42 })).toEqual([
      'x-svc-node',
      'gpu-a',
      'server-timing',
      'gateway;dur=0.4',
    ]);
    expect(serverTiming({ gatewayMs: 1, wakeMs: 8123.4 })).toBe('gateway;dur=1.0, wake;dur=8123');
  });

  it('puts no limit on a stream and the reply timeout on anything else', () => {
    expect(upstreamTimeouts(true, 1_800_000)).toEqual({ headersTimeout: 0, bodyTimeout: 0 });
    expect(upstreamTimeouts(false, 1_800_000)).toEqual({
      headersTimeout: 1_800_000,
      bodyTimeout: 1_800_000,
    });
  });

  it('turns an engine error after wake progress into one SSE event', () => {
    const engine = '{"error":{"code":500,"message":"boom","type":"server_error"}}';
    expect(engineErrorEvent(500, engine, 'a')).toBe(`data: ${engine}\n\n`);
    expect(engineErrorEvent(502, '<html>', 'a')).toBe(
      'data: {"error":{"message":"the engine on a answered 502","type":"server_error","code":"upstream_error"}}\n\n',
    );
  });
});
