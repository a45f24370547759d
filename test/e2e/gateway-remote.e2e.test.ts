/**
 * Remote nodes in a fleet (docs/remote.md, spec §4.2): the built gateway over one real daemon and
 * remote environments served by the control-plane simulator, whose instances are real
 * llama-servers on the tiny model. Every control-plane call is SigV4-signed by svc with AWS's
 * libraries and verified by the simulator with the same libraries. One simulator and one gateway
 * serve the whole file.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  type ControlPlaneSimulator,
  FAKE_AWS,
  fakeAwsEnv,
  startControlPlane,
} from '../support/fakes/control-plane.ts';
import { chat } from '../support/http/chat.ts';
import { readSse } from '../support/http/sse.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import type { TestProcess } from '../support/processes/processes.ts';
import { freePort, startTestDaemon, type TestDaemon } from '../support/svc/daemon.ts';
import { authorized, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const NODE_TOKEN = 'node-token-41f2';
const ENGINE_KEY = 'engine-key-remote-83c1';
const SECRETS = [
  ENGINE_KEY,
  NODE_TOKEN,
  FAKE_AWS.AWS_SECRET_ACCESS_KEY,
  FAKE_AWS.AWS_ACCESS_KEY_ID,
];

let dir = '';
let configDir = '';
let sim: ControlPlaneSimulator;
let closeSim = (): Promise<void> => Promise.resolve();
let daemon: TestDaemon;
let gateway: TestProcess;
let url = '';
/** Everything svc said or answered in this file, checked for secrets at the end. */
const seen: string[] = [];

async function register(name: string): Promise<void> {
  await mkdir(join(configDir, 'remotes', name), { recursive: true });
  await writeFile(
    join(configDir, 'remotes', name, 'remote.json'),
    JSON.stringify(sim.registryEntry(name)),
  );
}

async function complete(model: string, base = url): Promise<{ status: number; body: string }> {
  const reply = await chat(base, { model }, { headers: authorized() });
  const body = await reply.text();
  seen.push(body);
  return { status: reply.status, body };
}

async function getJson(path: string): Promise<unknown> {
  const reply = await fetch(`${url}${path}`, { headers: authorized() });
  const body = await reply.text();
  seen.push(body);
  expect(reply.status, body).toBe(200);
  return JSON.parse(body) as unknown;
}

interface FleetRow {
  name: string;
  state?: string;
  retainUntil?: string;
  error?: string;
}

async function fleetRows(): Promise<FleetRow[]> {
  return ((await getJson('/v1/fleet')) as { nodes: FleetRow[] }).nodes;
}

beforeAll(() => sharedByFile(setUp));

async function setUp(): Promise<void> {
  dir = await tempDir();
  configDir = join(dir, 'config-gateway');
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  sim = await startControlPlane({ engineKey: ENGINE_KEY, modelPath: model, workDir: dir });
  closeSim = () => sim.close();
  const llama = { runner: 'llamacpp' };
  sim.environments.set('gpu-a', {
    deployed: { ...llama, modelId: 'tiny-remote', servedModelName: 'tiny-remote' },
    bootMs: 1500,
  });
  sim.environments.set('gpu-empty', {});
  // Never finishes booting: the wake timeout case.
  sim.environments.set('gpu-slow', {
    deployed: { ...llama, modelId: 'slow-remote' },
    bootMs: 3_600_000,
  });
  sim.environments.set('gpu-off', { deployed: { ...llama, modelId: 'off-remote' } });
  for (const name of sim.environments.keys()) {
    await register(name);
  }
  daemon = await startTestDaemon({
    configDir: join(dir, 'config-local'),
    token: NODE_TOKEN,
    env: { SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
  });
  await writeFile(
    join(dir, 'fleet.yaml'),
    [
      'apiKeyEnv: ENGINE_KEY',
      'nodes:',
      '  - name: local',
      '    host: 127.0.0.1',
      `    port: ${new URL(daemon.url).port}`,
      '    tokenEnv: NODE_TOKEN',
      '    file: local.svc',
      '    engine: {host: 127.0.0.1}',
      '  - {name: gpu-a, kind: remote}',
      '  - {name: gpu-empty, kind: remote}',
      '  - {name: gpu-slow, kind: remote}',
      '  - {name: gpu-off, kind: remote, wake: off}',
      '',
    ].join('\n'),
  );
  await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);
  await writeFile(
    join(dir, 'local.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-local\nBASEURL 127.0.0.1:${await freePort()}\n`,
  );
  ({ gateway, url } = await startTestGateway({ cwd: dir, configDir, env: fakeAwsEnv(dir) }));
}

afterAll(async () => {
  // The simulator first: its instances are killed by PID, then the gateway, daemon and files.
  await closeSim();
  await endSharedByFile();
});

describe('a gateway over daemon and remote nodes', () => {
  it('lists a stopped daemon and a deployed-but-stopped remote model; nothing from an undeployed or wake-off one', async () => {
    const models = (await getJson('/v1/models')) as { data: { id: string }[] };
    const ids = models.data.map((entry) => entry.id).sort();
    expect(ids).toEqual(['slow-remote', 'tiny-local', 'tiny-remote']);
    // Listing read the stats; it booted nothing.
    expect(sim.launches.size).toBe(0);
  });

  it('shows each remote node in its own state words', async () => {
    const rows = await fleetRows();
    const byName = new Map(rows.map((row) => [row.name, row]));
    expect(byName.get('gpu-a')?.state).toBe('stopped');
    expect(byName.get('gpu-empty')?.state).toBe('undeployed');
  });

  it('wakes the daemon node beside the remote ones', async () => {
    // First, so its engine holds the port picked for it before any instance binds a port of its own.
    const reply = await complete('tiny-local');
    expect(reply.status, reply.body).toBe(200);
  });

  it('five concurrent requests boot the remote node once, through a dropped connection, and a stream comes from its engine with the key from apiKeyEnv', async () => {
    // The first start call's connection is dropped: the boot retries it after 5 s.
    sim.dropStarts = 1;
    const plain = Array.from({ length: 4 }, () => complete('tiny-remote'));
    const streamed = chat(
      url,
      { model: 'tiny-remote', max_tokens: 16, stream: true },
      { headers: authorized() },
    );
    const replies = await Promise.all(plain);
    for (const reply of replies) {
      expect(reply.status, reply.body).toBe(200);
    }
    const stream = await streamed;
    expect(stream.status).toBe(200);
    const { events } = await readSse(stream.body as ReadableStream<Uint8Array>);
    seen.push(...events.map((event) => event.data));
    expect(events.length, JSON.stringify(events)).toBeGreaterThan(3);
    expect(events.at(-1)?.data).toBe('[DONE]');
    // The lookup lags a launch by 500 ms: an uncoalesced wake would have launched five.
    expect(sim.launches.get('gpu-a')).toBe(1);
    expect(sim.dropStarts).toBe(0);
    expect((await fleetRows()).find((row) => row.name === 'gpu-a')?.state).toBe('running');
  });

  it('shows retainUntil while it is ahead and drops it once past', async () => {
    const env = sim.environments.get('gpu-a');
    if (env === undefined) {
      throw new Error('no gpu-a');
    }
    const gpuA = async (): Promise<FleetRow | undefined> =>
      (await fleetRows()).find((row) => row.name === 'gpu-a');
    const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    // An hour ahead: seen whatever the machine's speed. Then a time already past, which the
    // control plane no longer reports: the gateway drops it rather than keeping the old one.
    const ahead = rfc3339(Date.now() + 3_600_000);
    env.retainUntil = ahead;
    await eventually(gpuA, (row) => row?.retainUntil === ahead, `gpu-a retained until ${ahead}`, {
      intervalMs: 100,
    });
    env.retainUntil = rfc3339(Date.now() - 1_000);
    const dropped = await eventually(
      gpuA,
      (row) => row?.retainUntil === undefined,
      'gpu-a with no retainUntil',
      {
        intervalMs: 100,
      },
    );
    expect(dropped?.state).toBe('running');
  });

  it('does not wake a wake-off remote node, nor an undeployed one', async () => {
    for (const model of ['off-remote', 'nothing-here']) {
      const reply = await complete(model);
      expect(reply.status, reply.body).toBe(404);
    }
    expect(sim.launches.has('gpu-off')).toBe(false);
    expect(sim.launches.has('gpu-empty')).toBe(false);
  });

  it('answers 504 when a boot outlives --wake-timeout, and boots it once', async () => {
    const short = await startTestGateway({
      cwd: dir,
      configDir,
      env: fakeAwsEnv(dir),
      args: ['--wake-timeout', '2s'],
    });
    const reply = await complete('slow-remote', short.url);
    expect(reply.status, reply.body).toBe(504);
    expect(reply.body).toContain('wake_timeout');
    expect(sim.launches.get('gpu-slow')).toBe(1);
    seen.push(short.gateway.stdout(), short.gateway.stderr());
  });

  it('every control-plane call was signed and verified', () => {
    expect(sim.requests.length).toBeGreaterThan(0);
    expect(sim.requests.filter((request) => !request.verified)).toEqual([]);
  });

  it('a wrong secret key gets the 403 explained, naming no secret', async () => {
    const result = await runSvc(['fleet', 'status', '--json'], {
      cwd: dir,
      env: {
        ...fakeAwsEnv(dir),
        AWS_SECRET_ACCESS_KEY: 'not-the-secret-0000',
        SVC_CONFIG_DIR: configDir,
      },
    });
    seen.push(result.stdout, result.stderr);
    expect(result.status, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as { node: string; outcome: string; error?: string }[];
    const row = rows.find((entry) => entry.node === 'gpu-a');
    expect(row?.outcome).toBe('unauthorized');
    expect(row?.error).toMatch(/HTTP 403.*AWS_ACCESS_KEY_ID.*lambda:InvokeFunctionUrl/);
    expect(result.stdout).not.toContain('not-the-secret-0000');
  });

  it('svc fleet status shows an unregistered remote node as a row saying so, beside the others', async () => {
    const other = join(dir, 'unregistered');
    await mkdir(other);
    await writeFile(
      join(other, 'fleet.yaml'),
      'apiKeyEnv: ENGINE_KEY\nnodes:\n  - {name: gpu-a, kind: remote}\n  - {name: gpu-new, kind: remote}\n',
    );
    const result = await runSvc(['fleet', 'status'], {
      cwd: other,
      env: { ...fakeAwsEnv(dir), SVC_CONFIG_DIR: configDir, ENGINE_KEY },
    });
    seen.push(result.stdout, result.stderr);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^gpu-a +running +tiny-remote/m);
    expect(result.stdout).toMatch(
      /^gpu-new +config-error +remote environment "gpu-new" is not registered: run svc remote add gpu-new/m,
    );
  });

  it('refuses a remote node with no engine key at startup, naming it', async () => {
    const bare = join(dir, 'bare');
    await mkdir(bare);
    await writeFile(join(bare, 'fleet.yaml'), 'nodes:\n  - {name: gpu-a, kind: remote}\n');
    const result = await runSvc(['gateway', '--listen', '127.0.0.1:0'], {
      cwd: bare,
      env: { ...fakeAwsEnv(dir), SVC_CONFIG_DIR: configDir, SVC_API_TOKEN: 'token-1234' },
    });
    seen.push(result.stdout, result.stderr);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/node "gpu-a".*engineTokenEnv.*apiKeyEnv/);
  });

  it('no credential or key appears in any output or reply', () => {
    const everything = [...seen, gateway.stdout(), gateway.stderr()].join('\n');
    for (const secret of SECRETS) {
      expect(everything).not.toContain(secret);
    }
  });
});
