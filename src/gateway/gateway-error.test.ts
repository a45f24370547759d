/** Gateway refusals are OpenAI-shaped with the status GUIDE D19 gives them. */
import { describe, expect, it } from 'vitest';

import { errorBody, errorHeaders, GatewayError } from './gateway-error.ts';
import { upstreamTimeouts } from './proxy.ts';
import { proxiedReplyHeaders, serverTiming } from './reply-headers.ts';
import { engineErrorEvent } from './upstream-reply.ts';

describe('GatewayError', () => {
  it('writes {"error": {message, type, code}}', () => {
    expect(
      JSON.parse(errorBody(new GatewayError(404, 'gone', { code: 'model_not_found' }))),
    ).toEqual({
      error: { message: 'gone', type: 'invalid_request_error', code: 'model_not_found' },
    });
    expect(JSON.parse(errorBody(new GatewayError(502, 'broke')))).toEqual({
      error: { message: 'broke', type: 'server_error', code: 'upstream_error' },
    });
  });

  it('asks for Bearer on a 401 and sets Retry-After only where it is given', () => {
    expect(errorHeaders(new GatewayError(401, 'no'))).toEqual({ 'www-authenticate': 'Bearer' });
    expect(errorBody(new GatewayError(401, 'no'))).toContain('"code":"invalid_api_key"');
    expect(errorHeaders(new GatewayError(404, 'x', { code: 'model_not_found' }))).toEqual({});
    expect(errorHeaders(new GatewayError(504, 'slow', { retryAfterSeconds: 30 }))).toEqual({
      'retry-after': '30',
    });
  });
});

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
