/**
 * Fake daemon control APIs for the faults and scales a real daemon cannot show on cue: many nodes
 * in one process (each its own 127.0.0.1 port), a node that accepts connections and never answers,
 * and a port where nothing listens. Used by end-to-end tests and the fleet benchmark alike, so it
 * has no test-runner dependency: whoever starts one closes it.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';

import { freePort } from '../http/net.ts';

/** A status reply a fake node gives (spec §2.1 StatusResponse fields). */
export type FakeStatus = Record<string, unknown>;

export interface FakeDaemons {
  readonly ports: readonly number[];
  /** GET /v1/status requests answered so far, over all nodes. */
  statusCalls(): number;
  /** Connections open at the fakes right now (what the gateway holds toward its nodes). */
  openConnections(): number;
  close(): Promise<void>;
}

function listen(server: HttpServer | NetServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

/**
 * `count` fake daemons, node `index` answering GET /v1/status with `status(index)` (any token is
 * accepted; the fakes check nothing). Like a real daemon they keep connections alive for 72 s.
 */
export async function startFakeDaemons(
  count: number,
  status: (index: number) => FakeStatus,
): Promise<FakeDaemons> {
  const servers: HttpServer[] = [];
  const sockets = new Set<Socket>();
  let statusCalls = 0;
  const ports: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const body = JSON.stringify(status(index));
    const server = createHttpServer({ keepAliveTimeout: 72_000 }, (request, response) => {
      request.resume();
      if (request.method === 'GET' && request.url === '/v1/status') {
        statusCalls += 1;
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        response.end(body);
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":"the fake daemon serves only GET /v1/status"}');
    });
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    ports.push(await listen(server));
    servers.push(server);
  }
  return {
    ports,
    statusCalls: () => statusCalls,
    openConnections: () => sockets.size,
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => {
                resolve();
              });
            }),
        ),
      );
    },
  };
}

export interface HungDaemon {
  readonly port: number;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

/** A node that accepts connections, reads what is sent, and never answers. */
export async function startHungDaemon(): Promise<HungDaemon> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createNetServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.resume();
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    port,
    accepted: () => accepted,
    close: () =>
      new Promise((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A port nothing listens on: connections to it are refused. */
export function refusingPort(): Promise<number> {
  return freePort();
}

/** A status reply for a node running `model`, ready, its engine at `enginePort`. */
export function runningStatus(model: string, enginePort: number): FakeStatus {
  return {
    state: 'running',
    runner: 'llamacpp',
    model,
    engine: { port: enginePort },
    ready: 'ready',
    version: 'dev',
  };
}
