/**
 * A streamed body through the engine client (docs/design.md D31 "Forms"): the bytes read first,
 * then the rest as it arrives, framed by the caller's length or chunked, each on a new connection;
 * a caller that breaks off mid-body fails the exchange.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';

import { afterEach, describe, expect, it } from 'vitest';

import { EngineClient, type EngineRequest } from './engine-client.ts';
import type { StreamedBody } from './streamed-body.ts';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** An engine that answers with the length, framing and bytes of what it received. */
async function echoEngine(): Promise<{ origin: string; connections: () => number }> {
  let connections = 0;
  const server = createServer((incoming, reply) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      reply.end(
        JSON.stringify({
          length: incoming.headers['content-length'] ?? null,
          chunked: incoming.headers['transfer-encoding'] === 'chunked',
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
  });
  server.on('connection', () => (connections += 1));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { origin: `http://127.0.0.1:${port}`, connections: () => connections };
}

function sendBody(client: EngineClient, origin: string, body: StreamedBody): Promise<string> {
  const request: EngineRequest = {
    origin,
    path: '/v1/audio/transcriptions',
    method: 'POST',
    headers: [],
    body,
    headersTimeout: 0,
    bodyTimeout: 0,
  };
  return new Promise((resolve, reject) => {
    let text = '';
    client.dispatch(request, {
      onConnect: () => undefined,
      onHeaders: () => true,
      onData: (chunk) => {
        text += chunk.toString();
        return true;
      },
      onComplete: () => resolve(text),
      onError: reject,
    });
  });
}

describe('a streamed body', () => {
  it('sends what was read, then the rest as it comes, with the length or chunked', async () => {
    const engine = await echoEngine();
    const client = new EngineClient();
    for (const length of [10, undefined]) {
      const rest = new PassThrough();
      const reply = sendBody(client, engine.origin, {
        first: Buffer.from('head:'),
        rest,
        ...(length === undefined ? {} : { length }),
      });
      rest.write('one,');
      setImmediate(() => rest.end('t'));
      expect(JSON.parse(await reply)).toEqual({
        length: length === undefined ? null : '10',
        chunked: length === undefined,
        body: 'head:one,t',
      });
    }
    // Each on a connection of its own: a kept one might have been closed, and it cannot be resent.
    expect(engine.connections()).toBe(2);
  });

  it('fails the exchange when the caller breaks off mid-body', async () => {
    const engine = await echoEngine();
    const rest = new PassThrough();
    const reply = sendBody(new EngineClient(), engine.origin, { first: Buffer.from('a'), rest });
    rest.destroy(new Error('caller gone'));
    await expect(reply).rejects.toThrow('caller gone');
  });
});
