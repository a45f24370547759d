/** Real HTTP servers for unit tests, each closed (open connections too) when its test ends. */
import { createServer, type RequestListener } from 'node:http';
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
