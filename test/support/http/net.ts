/** A free loopback port, for tests and benchmarks alike (no test-runner dependency). */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Where picked ports come from: below the kernel's ephemeral range (Linux: 32768 and up). A port
 * picked there cannot be taken, between the pick and the program binding it, by anything that
 * binds port 0 (a daemon, a gateway, an engine of another test) or by an outgoing connection's
 * local end, both of which the kernel draws from the ephemeral range. Elsewhere (no /proc),
 * the kernel's own choice.
 */
function pickRange(): { low: number; high: number } | undefined {
  try {
    const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    return ephemeralLow !== undefined && ephemeralLow > 12_000
      ? { low: 10_000, high: ephemeralLow - 1 }
      : undefined;
  } catch {
    return undefined;
  }
}

const RANGE = pickRange();
/** Ports this process handed out: never twice, even once their taker let them go. */
const handedOut = new Set<number>();
const PICK_TRIES = 64;

/** The port `port` (0: the kernel's choice) once bound and let go, or undefined when taken. */
async function bindAndRelease(port: number): Promise<number | undefined> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!bound) {
    return undefined;
  }
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return address === null || typeof address === 'string' ? undefined : address.port;
}

/** A port that was free a moment ago on 127.0.0.1, and that this process has not handed out. */
export async function freePort(): Promise<number> {
  for (let tries = 0; RANGE !== undefined && tries < PICK_TRIES; tries += 1) {
    const port = RANGE.low + Math.floor(Math.random() * (RANGE.high - RANGE.low + 1));
    if (!handedOut.has(port) && (await bindAndRelease(port)) === port) {
      handedOut.add(port);
      return port;
    }
  }
  const port = await bindAndRelease(0);
  if (port === undefined) {
    throw new Error('no free port on 127.0.0.1');
  }
  return port;
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
