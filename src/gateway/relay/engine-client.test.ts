/** The engine client against real sockets on 127.0.0.1: node:http servers and raw ones for faults. */
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { eventually } from '../../../test/support/time/eventually.ts';
import {
  EngineClient,
  EngineClosedError,
  type EngineHandler,
  type EngineRequest,
  EngineRequestAbortedError,
  EngineTimeoutError,
} from './engine-client.ts';

interface Outcome {
  status: number;
  headers: string[];
  body: string;
  error?: Error;
}

const opened: { close(done?: () => void): void }[] = [];
afterEach(() => {
  for (const server of opened.splice(0)) {
    server.close();
  }
});

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<string> {
  opened.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function request(origin: string, extra: Partial<EngineRequest> = {}): EngineRequest {
  return {
    origin,
    path: '/v1/chat/completions',
    method: 'POST',
    headers: ['content-type', 'application/json'],
    body: '{"model":"m"}',
    headersTimeout: 0,
    bodyTimeout: 0,
    ...extra,
  };
}

/** Runs one request; `hooks` may replace any handler call (each still records what it saw). */
function send(
  client: EngineClient,
  req: EngineRequest,
  hooks: Partial<EngineHandler> = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { status: 0, headers: [], body: '' };
    client.dispatch(req, {
      onConnect: (abort) => hooks.onConnect?.(abort),
      onHeaders: (status, headers, resume) => {
        Object.assign(outcome, { status, headers });
        return hooks.onHeaders?.(status, headers, resume) ?? true;
      },
      onData: (chunk) => {
        outcome.body += chunk.toString();
        return hooks.onData?.(chunk) ?? true;
      },
      onComplete: () => resolve(outcome),
      onError: (error) => resolve({ ...outcome, error }),
    });
  });
}

describe('EngineClient', () => {
  it('sends the request whole and keeps the connection for the next one', async () => {
    const seen: Record<string, string | number | undefined>[] = [];
    const origin = await listen(
      createHttpServer((incoming, reply) => {
        let body = '';
        incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
        incoming.on('end', () => {
          seen.push({
            url: incoming.url,
            host: incoming.headers.host,
            body,
            port: incoming.socket.remotePort ?? 0,
            auth: incoming.headers.authorization,
          });
          reply.writeHead(200, { 'content-type': 'application/json', 'x-engine': 'a' });
          reply.end('{"ok":true}');
        });
      }),
    );
    const client = new EngineClient();
    const first = await send(
      client,
      request(origin, { headers: ['authorization', 'Bearer engine-key'], body: Buffer.from('é') }),
    );
    expect(first).toMatchObject({ status: 200, body: '{"ok":true}' });
    expect(first.headers).toContain('x-engine');
    expect(client.idleCount(origin)).toBe(1);
    const second = await send(client, request(origin));
    expect(second.body).toBe('{"ok":true}');
    expect(seen).toMatchObject([
      { url: '/v1/chat/completions', host: origin.slice(7), body: 'é', auth: 'Bearer engine-key' },
      { body: '{"model":"m"}' },
    ]);
    expect(seen[1]?.port).toBe(seen[0]?.port);
  });

  it('passes each chunk of a stream on before the next exists, and pauses for a slow reader', async () => {
    let next: (() => void) | undefined;
    const origin = await listen(
      createHttpServer((_incoming, reply) => {
        reply.writeHead(200, { 'content-type': 'text/event-stream' });
        reply.write('data: 1\n\n');
        next = () => reply.end('data: 2\n\n');
      }),
    );
    const client = new EngineClient();
    let resume: (() => void) | undefined;
    const chunks: string[] = [];
    const outcome = await send(client, request(origin), {
      onHeaders: (_status, _headers, resumeBody) => {
        resume = resumeBody;
        return true;
      },
      onData: (chunk) => {
        chunks.push(chunk.toString());
        if (chunks.length === 1) {
          // The first chunk arrived while the engine still holds the second; pause, then go on.
          setTimeout(() => {
            next?.();
            resume?.();
          }, 20);
          return false;
        }
        return true;
      },
    });
    expect(chunks).toEqual(['data: 1\n\n', 'data: 2\n\n']);
    expect(outcome.error).toBeUndefined();
    // A reply ended by the engine's chunked framing leaves a connection worth keeping.
    expect(client.idleCount(origin)).toBe(1);
  });

  it('holds the rest of one read while paused, and no time limit runs out meanwhile', async () => {
    const origin = await listen(
      createTcpServer((socket: Socket) => {
        socket.once('data', () => {
          const chunks = Array.from({ length: 30 }, (_, index) => `data: ${index}\n\n`);
          // Thirty chunks and the end in one write: one socket read on the client.
          socket.write(
            'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n' +
              chunks.map((chunk) => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('') +
              '0\r\n\r\n',
          );
        });
      }),
    );
    const client = new EngineClient();
    let resume: (() => void) | undefined;
    let whilePaused = 0;
    let paused = false;
    const outcome = await send(client, request(origin, { bodyTimeout: 30 }), {
      onHeaders: (_status, _headers, resumeBody) => {
        resume = resumeBody;
        return true;
      },
      onData: () => {
        if (paused) {
          whilePaused += 1;
        }
        paused = true;
        // A reader that takes longer than the body's time limit to want more.
        setTimeout(() => {
          paused = false;
          resume?.();
        }, 60);
        return false;
      },
    });
    expect(whilePaused).toBe(0);
    expect(outcome.error).toBeUndefined();
    expect(outcome.body).toBe(
      Array.from({ length: 30 }, (_, index) => `data: ${index}\n\n`).join(''),
    );
  });

  it('does not keep a connection the engine closes, nor a reply framed by its close', async () => {
    const origin = await listen(
      createTcpServer((socket) => {
        socket.once('data', () =>
          socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil close'),
        );
      }),
    );
    const client = new EngineClient();
    expect(await send(client, request(origin))).toMatchObject({ status: 200, body: 'until close' });
    expect(client.idleCount(origin)).toBe(0);
  });

  it('names a kept connection closed under a request, before any reply byte', async () => {
    let requests = 0;
    const origin = await listen(
      createTcpServer((socket: Socket) => {
        socket.on('data', () => {
          requests += 1;
          if (requests === 1) {
            socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
          } else {
            // What llama-server does to a kept connection after a stream: close, say nothing.
            socket.destroy();
          }
        });
      }),
    );
    const client = new EngineClient();
    expect((await send(client, request(origin))).body).toBe('ok');
    const { error } = await send(client, request(origin));
    expect(error).toBeInstanceOf(EngineClosedError);
    expect(error).toMatchObject({ code: 'ECONNRESET', replyStarted: false });
  });

  it('forgets a kept connection the engine ended, and opens a new one when asked', async () => {
    const ports: number[] = [];
    const origin = await listen(
      createTcpServer((socket: Socket) => {
        socket.on('data', () => {
          ports.push(socket.remotePort ?? 0);
          socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
          if (ports.length === 1) {
            // As llama-server does after a stream: a reply that allows keep-alive, then a FIN.
            socket.end();
          }
        });
      }),
    );
    const client = new EngineClient();
    expect((await send(client, request(origin))).body).toBe('ok');
    const idle = (): Promise<number> => Promise.resolve(client.idleCount(origin));
    await eventually(idle, (count) => count === 0, 'the ended connection forgotten');
    expect(await send(client, request(origin))).toMatchObject({ body: 'ok' });
    expect(client.idleCount(origin)).toBe(1);
    expect(await send(client, request(origin, { freshConnection: true }))).toMatchObject({
      body: 'ok',
    });
    expect(new Set(ports).size).toBe(3);
    expect(client.idleCount(origin)).toBe(2);
  });

  it('times out a reply head and a stalled body apart, and aborts on request', async () => {
    const origin = await listen(
      createHttpServer((incoming, reply) => {
        if (incoming.url === '/stall') {
          reply.writeHead(200, { 'content-type': 'text/event-stream' });
          reply.write('data: 1\n\n');
        }
        // '/silent' is never answered.
      }),
    );
    const client = new EngineClient();
    const silent = await send(client, request(origin, { path: '/silent', headersTimeout: 50 }));
    expect(silent.error).toBeInstanceOf(EngineTimeoutError);
    expect(silent.error).toMatchObject({ phase: 'headers' });
    const stalled = await send(client, request(origin, { path: '/stall', bodyTimeout: 50 }));
    expect(stalled).toMatchObject({ status: 200, body: 'data: 1\n\n' });
    expect(stalled.error).toMatchObject({ phase: 'body' });

    let abort: ((reason?: Error) => void) | undefined;
    const aborted = await send(client, request(origin, { path: '/stall' }), {
      onConnect: (given) => (abort = given),
      onData: () => {
        abort?.();
        return true;
      },
    });
    expect(aborted.error).toBeInstanceOf(EngineRequestAbortedError);
    expect(client.idleCount(origin)).toBe(0);
  });

  it('refuses a header that would break its line without quoting it, and reports a refused connect', async () => {
    const origin = await listen(createHttpServer((_incoming, reply) => reply.end()));
    const client = new EngineClient();
    const injected = await send(
      client,
      request(origin, { headers: ['authorization', 'Bearer secret\r\nx-evil: 1'] }),
    );
    expect(injected.error?.message).toBe('the header "authorization" carries a line break');
    const closedPort = await listen(createTcpServer());
    await new Promise<void>((resolve) => opened.pop()?.close(resolve));
    const refused = await send(client, request(closedPort));
    expect(refused.error).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
