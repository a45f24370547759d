/** Real HTTP servers for unit tests, each closed (open connections too) when its test ends. */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

import { onTestFinished } from 'vitest';

/** A server on 127.0.0.1, port 0, closed when the current test ends; returns its base URL (no trailing slash). */
export async function serveLoopback(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** What a relay under test is given: the request as it came, its reply, and its whole body. */
export type RelayUnderTest = (
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  body: Buffer,
) => Promise<void>;

/**
 * A gateway-like server (serveLoopback) that reads each request's body whole and hands it to
 * `relay`; a refusal (an error with a `status`, as a GatewayError) is told to `refused` and
 * answered with that status and its message.
 */
export function serveRelay(
  relay: RelayUnderTest,
  refused?: (error: unknown) => void,
): Promise<string> {
  return serveLoopback((incoming, outgoing) => {
    const parts: Buffer[] = [];
    incoming.on('data', (part: Buffer) => parts.push(part));
    incoming.on('end', () => {
      relay(incoming, outgoing, Buffer.concat(parts)).catch((error: unknown) => {
        refused?.(error);
        const refusal = error as { status: number; message: string };
        outgoing.writeHead(refusal.status).end(refusal.message);
      });
    });
  });
}
