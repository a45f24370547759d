/** The relay's time limits, and an engine error mid-stream. */
import { describe, expect, it } from 'vitest';

import { engineErrorEvent } from './engine-error-event.ts';
import { upstreamTimeouts } from './proxy.ts';

describe('relay limits and mid-stream errors', () => {
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
