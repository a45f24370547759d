/** What the gateway adds to a proxied reply: the node that answered and its Server-Timing. */
import { describe, expect, it } from 'vitest';

import { proxiedReplyHeaders, serverTiming } from './reply-headers.ts';

describe('proxied reply headers', () => {
  it('names the node and times the gateway and the wake', () => {
    expect(proxiedReplyHeaders('gpu-a', { gatewayMs: 0.42 })).toEqual([
      'x-svc-node',
      'gpu-a',
      'server-timing',
      'gateway;dur=0.4',
    ]);
    expect(serverTiming({ gatewayMs: 1, wakeMs: 8123.4 })).toBe('gateway;dur=1.0, wake;dur=8123');
  });
});
