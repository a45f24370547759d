/** A free loopback port, for tests and benchmarks alike (no test-runner dependency). */
import { createServer } from 'node:net';

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') {
    throw new Error('no port');
  }
  return address.port;
}

/**
 * `count` consecutive ports that were all free a moment ago, for a program that numbers its own
 * ports from a first one (llama-swap's startPort).
 */
export async function freeConsecutivePorts(count: number): Promise<number> {
  for (;;) {
    const first = await freePort();
    const servers = [];
    try {
      for (let port = first; port < first + count; port += 1) {
        const server = createServer();
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', resolve);
        });
        servers.push(server);
      }
      return first;
    } catch {
      // One of them was taken: try from another first port.
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  }
}
