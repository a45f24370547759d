/** The gateway's request count stands in for a running local node's engine that counts none. */
import { describe, expect, it } from 'vitest';

import { GatewayMetrics } from './gateway-metrics.ts';
import { RequestCounts, withGatewayRequests } from './request-counts.ts';

const local = { kind: 'local', name: 'a' } as const;

function countsOf(requests: number): RequestCounts {
  const counts = new RequestCounts();
  for (let index = 0; index < requests; index += 1) {
    counts.add('a');
  }
  return counts;
}

describe('withGatewayRequests', () => {
  it("fills a running local node's missing tokens.requests with the gateway's count", () => {
    const stats = { state: 'running', tokens: { generationTokens: 90 } } as const;
    expect(withGatewayRequests(local, stats, countsOf(3))).toEqual({
      state: 'running',
      tokens: { generationTokens: 90, requests: 3 },
    });
  });

  it("keeps the engine's own count, a stopped node's absence, and a daemon node's stats", () => {
    const counted = { state: 'running', tokens: { requests: 7 } } as const;
    expect(withGatewayRequests(local, counted, countsOf(3))).toBe(counted);
    const stopped = { state: 'stopped' } as const;
    expect(withGatewayRequests(local, stopped, countsOf(3))).toBe(stopped);
    const daemon = { state: 'running' } as const;
    expect(withGatewayRequests({ kind: 'daemon', name: 'a' }, daemon, countsOf(3))).toBe(daemon);
  });
});

describe("GatewayMetrics counts each request a node's engine answered", () => {
  it('per node: not a request refused before a node, nor one whose engine never answered', () => {
    const metrics = new GatewayMetrics(() => Promise.resolve([]));
    const answered = { model: 'm', node: 'a', repliedAt: 2 };
    metrics.record('/v1/chat/completions', answered, 200, 1, 3, false);
    metrics.record('/v1/chat/completions', answered, 200, 1, 3, true);
    metrics.record('/v1/chat/completions', { model: 'typo' }, 404, 0, 1, false);
    metrics.record('/v1/chat/completions', { model: 'm', node: 'b' }, 502, 0, 1, false);
    expect([metrics.served.of('a'), metrics.served.of('b')]).toEqual([2, 0]);
  });
});
