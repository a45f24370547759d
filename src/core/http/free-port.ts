/**
 * A port nothing listens on at 127.0.0.1 now, for an engine whose project file names none
 * (docs/design.md D27): the kernel picks it (port 0) and it is let go at once, for the engine to
 * bind.
 */
import { createServer } from 'node:net';

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}
