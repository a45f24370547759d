/**
 * The simulated fleet for the fleet-scale benchmark, run as its own process (so its CPU is not the
 * gateway's): `count` fake daemon control APIs on 127.0.0.1 ports (test/support/fakes/fake-daemons.ts),
 * and one node that accepts and never answers; the nodes point at engines already running
 * (bench/fleet/fake-engines.ts, their own process), round-robin over the given ports. It
 * writes `fleet.yaml` (the nodes) and `fleet-hung.yaml` (the hung node first, then the same nodes)
 * into `dir`, prints `ready <stats port>`, answers GET /stats with the status calls served so far,
 * and exits on SIGTERM/SIGINT or when its parent closes its stdin.
 *
 * Usage: node --import tsx bench/fleet/fake-fleet.ts <count> <dir> <engine port>,<engine port>,…
 */
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';

import {
  runningStatus,
  startFakeDaemons,
  startHungDaemon,
} from '../../test/support/fakes/fake-daemons.ts';
import { listenLocal, stopWithParent } from '../support.ts';

const count = Number(process.argv[2]);
const dir = process.argv[3] ?? '.';
const enginePorts = (process.argv[4] ?? '').split(',').filter(Boolean).map(Number);
if (!Number.isInteger(count) || count < 1 || enginePorts.length === 0) {
  throw new Error(
    `usage: fake-fleet.ts <count> <dir> <engine ports> (given: ${process.argv.slice(2).join(' ')})`,
  );
}

const daemons = await startFakeDaemons(count, (index) =>
  runningStatus(`model-${index}`, enginePorts[index % enginePorts.length] ?? 0),
);
const hung = await startHungDaemon();

const nodeLines = (name: string, port: number): string[] => [
  `  - name: ${name}`,
  '    host: 127.0.0.1',
  `    port: ${port}`,
  '    wake: off',
];
const nodes = daemons.ports.flatMap((port, index) => nodeLines(`node-${index}`, port));
await writeFile(join(dir, 'fleet.yaml'), ['nodes:', ...nodes, ''].join('\n'));
await writeFile(
  join(dir, 'fleet-hung.yaml'),
  ['nodes:', ...nodeLines('hung', hung.port), ...nodes, ''].join('\n'),
);

const stats = createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({ statusCalls: daemons.statusCalls(), hungAccepted: hung.accepted() }),
  );
});
const statsPort = await listenLocal(stats);

stopWithParent(async () => {
  stats.close();
  await Promise.all([daemons.close(), hung.close()]);
});

process.stdout.write(`ready ${statsPort}\n`);
