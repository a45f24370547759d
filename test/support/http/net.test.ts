/** The test's port picker: free, never handed out twice, and out of the kernel's ephemeral range. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

import { describe, expect, it } from 'vitest';

import { freePort } from './net.ts';

function ephemeralLow(): number | undefined {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);
  } catch {
    return undefined;
  }
}

describe('freePort', () => {
  it('hands out distinct ports that can be bound, below the ephemeral range where there is one', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      ports.push(await freePort());
    }
    expect(new Set(ports).size).toBe(ports.length);
    const low = ephemeralLow();
    if (low !== undefined && low > 12_000) {
      // Nothing that binds port 0 or connects out can take these between pick and use.
      expect(ports.every((port) => port >= 10_000 && port < low)).toBe(true);
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports[0], '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
