/** The engine client's time limits cost one timer per request when head and body share one. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { EngineClient } from './engine-client.ts';

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

describe('EngineClient timers', () => {
  it('arms one timer for a reply whose head and body limits are the same', async () => {
    server = createServer((_incoming, reply) => {
      reply.writeHead(200, { 'content-type': 'application/json' });
      reply.write('{"a":');
      setImmediate(() => reply.end('1}'));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const armed = vi.spyOn(globalThis, 'setTimeout');
    const outcome = await new Promise<{ status: number; body: string; error?: Error }>(
      (resolve) => {
        const seen = { status: 0, body: '' };
        new EngineClient().dispatch(
          {
            origin,
            path: '/v1/chat/completions',
            method: 'POST',
            headers: [],
            body: '{}',
            headersTimeout: 4_321,
            bodyTimeout: 4_321,
          },
          {
            onConnect: () => undefined,
            onHeaders: (status) => ((seen.status = status), true),
            onData: (chunk) => ((seen.body += chunk.toString()), true),
            onComplete: () => resolve(seen),
            onError: (error) => resolve({ ...seen, error }),
          },
        );
      },
    );
    const ours = armed.mock.calls.filter(([, ms]) => ms === 4_321).length;
    armed.mockRestore();
    expect(outcome).toEqual({ status: 200, body: '{"a":1}' });
    // Started again at the head (a non-streamed reply's two limits), not cleared for a second.
    expect(ours).toBe(1);
  });
});
