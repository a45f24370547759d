/**
 * The fleet claim (docs/design.md D27): one state directory per fleet file, keyed by its real path, and
 * one live gateway at a time holding it. A second gateway is refused naming the nodes and the
 * holder; a claim whose gateway is gone (its pid dead, or recycled by a process that started at
 * another time) is taken over; a gateway gives up only its own claim. Real files in a temp dir,
 * the process table faked.
 */
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { tempDir } from '../../../../test/support/processes/temp-dir.ts';
import { SvcError } from '../../errors.ts';
import { type ClaimEdges, claimFleet, fleetStateDir } from './fleet-claim.ts';

/** A process table: pid → start time (undefined: no /proc to say). */
type Table = Map<number, number | undefined>;

function gateway(pid: number, table: Table): ClaimEdges {
  const startTime = table.get(pid);
  return {
    self: () => (startTime === undefined ? { pid } : { pid, startTime }),
    exists: (other) => table.has(other),
    startTimeOf: (other) => table.get(other),
    now: () => new Date('2026-01-01T12:00:00.000Z'),
  };
}

async function refusalOf(run: Promise<unknown>): Promise<SvcError> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SvcError);
  return error as SvcError;
}

describe('fleetStateDir', () => {
  it('keys each fleet file by its real path, under fleets/ in the config dir', async () => {
    const dir = await tempDir();
    const one = join(dir, 'one.yaml');
    const two = join(dir, 'two.yaml');
    await writeFile(one, 'nodes: []\n');
    await writeFile(two, 'nodes: []\n');
    await symlink(one, join(dir, 'link.yaml'));
    const base = dir.split('/').pop() ?? '';
    expect(fleetStateDir('/cfg', one)).toMatch(
      new RegExp(`^/cfg/fleets/${base.replace(/[.-]/g, '\\$&')}-[0-9a-f]{8}$`),
    );
    expect(fleetStateDir('/cfg', two)).not.toBe(fleetStateDir('/cfg', one));
    expect(fleetStateDir('/cfg', join(dir, 'link.yaml'))).toBe(fleetStateDir('/cfg', one));
  });
});

describe('claimFleet', () => {
  it('refuses a second gateway while the first lives, naming the nodes and the first', async () => {
    const dir = await tempDir();
    const table: Table = new Map([
      [100, 5000],
      [200, 6000],
    ]);
    const first = await claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(100, table));
    await first.bound('http://127.0.0.1:4000');
    const refused = await refusalOf(
      claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(200, table)),
    );
    expect(refused.code).toBe('ERR_FLEET_IN_USE');
    expect(refused.message).toBe(
      'the local nodes chat of /f/fleet.yaml are already run by another gateway (pid 100, listening on http://127.0.0.1:4000, since 2026-01-01T12:00:00.000Z): stop that gateway first (Ctrl+C where it runs, or kill 100), or use it; nothing was started or stopped',
    );
    // The first still holds it.
    expect(JSON.parse(await readFile(first.path, 'utf8'))).toMatchObject({ pid: 100 });
  });

  it('takes over a claim whose gateway is gone', async () => {
    const dir = await tempDir();
    const table: Table = new Map([[100, 5000]]);
    await claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(100, table));
    table.delete(100);
    table.set(200, 6000);
    const second = await claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(200, table));
    expect(JSON.parse(await readFile(second.path, 'utf8'))).toMatchObject({
      pid: 200,
      startTime: 6000,
      fleet: '/f/fleet.yaml',
    });
  });

  it('takes over a claim whose pid now belongs to a process that started at another time', async () => {
    const dir = await tempDir();
    const table: Table = new Map([[100, 5000]]);
    await claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(100, table));
    // Pid 100 recycled by an unrelated process.
    table.set(100, 9000);
    table.set(200, 6000);
    const second = await claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(200, table));
    expect(JSON.parse(await readFile(second.path, 'utf8'))).toMatchObject({ pid: 200 });
  });

  it('where no start time can be read, a live pid keeps the claim', async () => {
    const dir = await tempDir();
    const table: Table = new Map([
      [100, undefined],
      [200, undefined],
    ]);
    await claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(100, table));
    const refused = await refusalOf(
      claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(200, table)),
    );
    expect(refused.message).toContain('another gateway (pid 100, since');
  });

  it('takes over a claim that does not parse (a torn write of an older svc)', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'gateway.json'), '{"pid": 1');
    const table: Table = new Map([[200, 6000]]);
    const claim = await claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(200, table));
    expect(JSON.parse(await readFile(claim.path, 'utf8'))).toMatchObject({ pid: 200 });
  });

  it('gives up its own claim only, never one taken over since', async () => {
    const dir = await tempDir();
    const table: Table = new Map([[100, 5000]]);
    const first = await claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(100, table));
    await first.release();
    const table2: Table = new Map([[200, 6000]]);
    const second = await claimFleet(dir, '/f/fleet.yaml', ['chat'], gateway(200, table2));
    // The first, given up already, releasing again (or late) leaves the second's claim alone.
    await first.release();
    await first.bound('http://127.0.0.1:9');
    expect(JSON.parse(await readFile(second.path, 'utf8'))).toEqual({
      pid: 200,
      startTime: 6000,
      fleet: '/f/fleet.yaml',
      startedAt: '2026-01-01T12:00:00.000Z',
    });
  });
});
