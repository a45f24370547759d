/**
 * The simulated fleet for the fleet-scale benchmark, run as its own process (so its CPU is not the
 * gateway's): `count` fake daemon control APIs on 127.0.0.1 ports (test/support/fake-daemons.ts),
 * one node that accepts and never answers, and a few fake OpenAI engines the nodes point at. It
 * writes `fleet.yaml` (the nodes) and `fleet-hung.yaml` (the hung node first, then the same nodes)
 * into `dir`, prints `ready <stats port>`, answers GET /stats with the status calls served so far,
 * and exits on SIGTERM/SIGINT or when its parent closes its stdin.
 *
 * Usage: node --import tsx bench/fake-fleet.ts <count> <dir>
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { runningStatus, startFakeDaemons, startHungDaemon } from '../test/support/fake-daemons.ts';

const ENGINES = 4;
const COMPLETION = JSON.stringify({
  id: 'chatcmpl-fake',
  object: 'chat.completion',
  created: 0,
  model: 'fake',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
}

const count = Number(process.argv[2]);
const dir = process.argv[3] ?? '.';
if (!Number.isInteger(count) || count < 1) {
  throw new Error(`usage: fake-fleet.ts <count> <dir> (count was ${process.argv[2] ?? 'missing'})`);
}

const engines: Server[] = [];
const enginePorts: number[] = [];
for (let index = 0; index < ENGINES; index += 1) {
  const engine = createServer({ keepAliveTimeout: 5_000 }, (request, response) => {
    request.resume();
    request.once('end', () => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(COMPLETION),
      });
      response.end(COMPLETION);
    });
  });
  enginePorts.push(await listen(engine));
  engines.push(engine);
}
const daemons = await startFakeDaemons(count, (index) =>
  runningStatus(`model-${index}`, enginePorts[index % ENGINES] ?? 0),
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
const statsPort = await listen(stats);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) {
    return;
  }
  stopping = true;
  process.stdin.destroy();
  stats.close();
  engines.forEach((engine) => {
    engine.closeAllConnections();
    engine.close();
  });
  await Promise.all([daemons.close(), hung.close()]);
  process.exitCode = 0;
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
// The parent holds our stdin: when it goes (even killed), so do we.
process.stdin.resume();
process.stdin.once('end', () => void stop());
process.stdin.once('close', () => void stop());

process.stdout.write(`ready ${statsPort}\n`);
