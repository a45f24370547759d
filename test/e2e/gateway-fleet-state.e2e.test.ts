/**
 * Fleet state off the request path, end to end: the built gateway in front of a real daemon running
 * the real llama-server (tiny model), beside nodes that misbehave (fakes in test/support, since no
 * real daemon hangs or vanishes on cue). Beside a node that hangs or refuses, every request for a
 * model another node serves is answered by that node (that none waits for the silent one is for
 * the node states' unit tests in src/core/fleet/state/, in fake time); the fleet reports it
 * `unreachable` after its own timeout; and the gateway's descriptors stay bounded over hundreds of
 * nodes, under a descriptor limit lower than the node count.
 */
import { readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it, onTestFinished } from 'vitest';

import {
  refusingPort,
  runningStatus,
  startFakeDaemons,
  startHungDaemon,
} from '../support/fakes/fake-daemons.ts';
import { chatBody } from '../support/http/chat.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { startProcess, type TestProcess } from '../support/processes/processes.ts';
import { freePort, startTestDaemon } from '../support/svc/daemon.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const GATEWAY_TOKEN = 'gateway-token-5d21';
const NODE_TOKEN = 'node-token-9e8f';
/** The gateway's per-node status timeout: a node that never answers is unreachable after it. */
const STATUS_TIMEOUT_MS = 5_000;

interface Setup {
  dir: string;
  gateway: TestProcess;
  url: string;
  call(path: string, body?: unknown): Promise<Response>;
}

/** A fleet of the real node "real" (serving `tiny`) plus `extraNodes` fleet-file entries. */
async function setup(
  extraNodes: { name: string; port: number }[],
  options: { descriptorLimit?: number } = {},
): Promise<Setup> {
  const dir = await tempDir();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  const enginePort = await freePort();
  const daemon = await startTestDaemon({
    configDir: join(dir, 'config-real'),
    token: NODE_TOKEN,
    env: { SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
  });
  await writeFile(
    join(dir, 'real.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${enginePort}\n`,
  );
  const lines = [
    'nodes:',
    '  - name: real',
    '    host: 127.0.0.1',
    `    port: ${new URL(daemon.url).port}`,
    '    tokenEnv: NODE_TOKEN',
    '    file: real.svc',
    '    engine: {host: 127.0.0.1}',
    ...extraNodes.flatMap((node) => [
      `  - name: ${node.name}`,
      '    host: 127.0.0.1',
      `    port: ${node.port}`,
      '    tokenEnv: NODE_TOKEN',
      '    wake: off',
    ]),
  ];
  await writeFile(join(dir, 'fleet.yaml'), `${lines.join('\n')}\n`);
  await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\n`);
  const started = await runSvc(['fleet', 'start', 'real'], { cwd: dir });
  expect(started.stdout).toContain('real  running');

  const env = {
    ...process.env,
    SVC_API_TOKEN: GATEWAY_TOKEN,
    SVC_CONFIG_DIR: join(dir, 'config-gateway'),
    SVC_LOG_LEVEL: 'info',
  };
  const args = ['gateway', '--listen', '127.0.0.1:0'];
  // `exec` keeps the PID, so /proc/<pid>/fd is the gateway's own table.
  const gateway =
    options.descriptorLimit === undefined
      ? startProcess(SVC, args, { cwd: dir, env })
      : startProcess(
          'sh',
          [
            '-c',
            `ulimit -n ${options.descriptorLimit} && exec "$0" "$@"`,
            process.execPath,
            SVC,
            ...args,
          ],
          { cwd: dir, env },
        );
  const [, url = ''] = await gateway.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const call = (path: string, body?: unknown): Promise<Response> =>
    fetch(`${url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${GATEWAY_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  // The engine is loading: the first request is held until it is ready (docs/design.md D13).
  const first = await call('/v1/chat/completions', chat());
  expect(first.status).toBe(200);
  await first.text();
  return { dir, gateway, url, call };
}

const chat = (): Record<string, unknown> => chatBody({ model: 'tiny' });

/** `count` sequential completions through the gateway, each as "<status> <node> <object>". */
async function completions(test: Setup, count = 20): Promise<string[]> {
  const results: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const reply = await test.call('/v1/chat/completions', chat());
    const body = (await reply.json().catch(() => ({}))) as { object?: string };
    results.push(`${reply.status} ${reply.headers.get('x-svc-node') ?? '-'} ${body.object ?? '-'}`);
  }
  return results;
}

/** What every completion answers: a chat completion from the real node, whatever else is in the fleet. */
const SERVED = '200 real chat.completion';

interface FleetReply {
  nodes: { name: string; state: string; detail?: string }[];
}

async function fleetState(test: Setup, name: string): Promise<string | undefined> {
  const reply = (await (await test.call('/v1/fleet')).json()) as FleetReply;
  return reply.nodes.find((node) => node.name === name)?.state;
}

function descriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

describe('gateway fleet state with nodes that hang, refuse, and number in the hundreds', () => {
  it('answers every completion beside a hung node, and marks that node unreachable', async () => {
    const hung = await startHungDaemon();
    onTestFinished(() => hung.close());
    const test = await setup([{ name: 'hung', port: hung.port }]);

    expect(await completions(test)).toEqual(Array(20).fill(SERVED));
    // The gateway asked it (and keeps asking): it is in the fleet, not ignored.
    expect(hung.accepted()).toBeGreaterThan(0);
    // After its own timeout the fleet reports it unreachable.
    await eventually(
      () => fleetState(test, 'hung'),
      (state) => state === 'unreachable',
      'the hung node reported unreachable',
      { timeoutMs: 4 * STATUS_TIMEOUT_MS, intervalMs: 500 },
    );
    expect(await fleetState(test, 'real')).toBe('running');

    const status = await runSvc(['fleet', 'status', '--json'], { cwd: test.dir });
    const rows = JSON.parse(status.stdout) as { node: string; outcome: string }[];
    expect(rows.map((row) => `${row.node} ${row.outcome}`)).toEqual([
      'real ok',
      'hung unreachable',
    ]);
  }, 120_000);

  it('answers every completion beside a node that refuses connections', async () => {
    const test = await setup([{ name: 'gone', port: await refusingPort() }]);
    expect(await completions(test)).toEqual(Array(20).fill(SERVED));
    expect(await fleetState(test, 'gone')).toBe('unreachable');
  }, 120_000);

  it('keeps descriptors bounded over 300 nodes under a limit of 256, with no EMFILE', async () => {
    const enginePort = await freePort();
    const fakes = await startFakeDaemons(300, (index) =>
      runningStatus(`other-model-${index}`, enginePort),
    );
    onTestFinished(() => fakes.close());
    const hung = await startHungDaemon();
    onTestFinished(() => hung.close());
    const test = await setup(
      [
        ...fakes.ports.map((port, index) => ({ name: `fake-${index}`, port })),
        { name: 'hung', port: hung.port },
      ],
      { descriptorLimit: 256 },
    );

    // Steady traffic, completions and the fleet view, in rounds: at least 8, and on until every
    // fake node has been asked again while it flowed (the state is kept, not read once). The
    // gateway's refresh is the clock here, not a sleep.
    let peak = 0;
    let rounds = 0;
    const callsBefore = fakes.statusCalls();
    await eventually(
      async () => {
        expect(await completions(test, 10)).toEqual(Array(10).fill(SERVED));
        const fleet = (await (await test.call('/v1/fleet')).json()) as FleetReply;
        expect(fleet.nodes).toHaveLength(302);
        expect(
          fleet.nodes.filter((node) => node.name.startsWith('fake-') && node.state !== 'running'),
        ).toEqual([]);
        peak = Math.max(peak, descriptors(test.gateway.pid));
        rounds += 1;
        return { rounds, asked: fakes.statusCalls() - callsBefore };
      },
      (seen) => seen.rounds >= 8 && seen.asked > 300,
      'every fake node asked again while traffic flowed',
      { timeoutMs: 120_000, intervalMs: 0 },
    );
    // Far below one per node: the fan-out bound (64) plus the gateway's own handful.
    expect(peak).toBeLessThan(150);
    expect(test.gateway.output()).not.toMatch(/EMFILE/);
    // No connection per node is held between calls (status calls close theirs when answered).
    expect(fakes.openConnections()).toBeLessThan(100);
    // A fixed amount of work, not a time limit: a loaded machine may take a while over it.
  }, 180_000);
});
