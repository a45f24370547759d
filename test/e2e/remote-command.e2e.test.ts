/**
 * `svc remote …` and `svc fleet deploy` (docs/remote.md) against the control-plane simulator: the
 * registry written and read back, a deploy from a node's Svcfile, then status, stats, a blocking
 * start with --keep, keep, pause, stop, svc fleet start|stop and rm, each call signed by svc and verified by the
 * simulator. The steps build on each other, so they share one simulator and one directory.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  type ControlPlaneSimulator,
  FAKE_AWS,
  fakeAwsEnv,
  startControlPlane,
} from '../support/fakes/control-plane.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

const ENGINE_KEY = 'engine-key-cmd-5d2e';
const SECRETS = [ENGINE_KEY, FAKE_AWS.AWS_SECRET_ACCESS_KEY, FAKE_AWS.AWS_ACCESS_KEY_ID];

let dir = '';
let configDir = '';
let sim: ControlPlaneSimulator;
let closeSim = (): Promise<void> => Promise.resolve();
const seen: string[] = [];

async function svc(
  ...args: string[]
): Promise<{ status: unknown; stdout: string; stderr: string }> {
  const result = await runSvc(args, {
    cwd: dir,
    env: { ...fakeAwsEnv(dir), SVC_CONFIG_DIR: configDir, ENGINE_KEY },
  });
  seen.push(result.stdout, result.stderr);
  return result;
}

beforeAll(() =>
  sharedByFile(async () => {
    dir = await tempDir();
    configDir = join(dir, 'config');
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    sim = await startControlPlane({ engineKey: ENGINE_KEY, modelPath: model, workDir: dir });
    closeSim = () => sim.close();
    sim.environments.set('gpu-x', { bootMs: 500 });
    await writeFile(join(dir, 'gpu-x.svc'), `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-x\n`);
    await writeFile(
      join(dir, 'fleet.yaml'),
      [
        'apiKeyEnv: ENGINE_KEY',
        'nodes:',
        '  - {name: gpu-x, kind: remote, file: gpu-x.svc, instance-type: g6e.xlarge}',
        '  - {name: local, host: 127.0.0.1, port: 9, file: gpu-x.svc}',
        '',
      ].join('\n'),
    );
  }),
);

afterAll(async () => {
  await closeSim();
  await endSharedByFile();
});

describe('svc remote and svc fleet deploy', () => {
  it('add refuses a bad flag before writing anything, then registers; ls shows it', async () => {
    const bad = await svc('remote', 'add', 'gpu-x', '--start-url', 'ftp://x', '--stop-url', 'x');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--start-url: "ftp://x" is not an http(s) URL');
    const missing = await svc('remote', 'add', 'gpu-x', '--start-url', `${sim.url}/start`);
    expect(missing.stderr).toContain('needs --stop-url <url>');
    expect((await svc('remote', 'ls')).stdout).toContain('no remote environments registered');

    const entry = sim.registryEntry('gpu-x');
    const flags = Object.entries(entry).flatMap(([key, value]) => [
      `--${key.replace('_', '-')}`,
      value,
    ]);
    const added = await svc('remote', 'add', 'gpu-x', ...flags);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/registered remote environment "gpu-x"/);
    const written = JSON.parse(
      await readFile(join(configDir, 'remotes', 'gpu-x', 'remote.json'), 'utf8'),
    ) as unknown;
    expect(written).toEqual(entry);
    expect((await svc('remote', 'ls')).stdout).toMatch(/^gpu-x +gpu-x +us-east-1 +http/m);
    const listed = JSON.parse((await svc('remote', 'ls', '--json')).stdout) as { name: string }[];
    expect(listed.map((row) => row.name)).toEqual(['gpu-x']);
  });

  it('stats before a deploy says nothing is deployed', async () => {
    const stats = await svc('remote', 'stats', 'gpu-x');
    expect(stats.status).not.toBe(0);
    expect(stats.stderr).toMatch(/stats of remote environment "gpu-x" returned HTTP 400/);
  });

  it('fleet deploy sends the Svcfile config with the instance type; a daemon node is a failed row', async () => {
    const deployed = await svc('fleet', 'deploy', '--all', '--json');
    expect(deployed.status).toBe(1);
    const rows = JSON.parse(deployed.stdout) as { node: string; outcome: string; error?: string }[];
    expect(rows.map((row) => [row.node, row.outcome])).toEqual([
      ['gpu-x', 'ok'],
      ['local', 'failed'],
    ]);
    expect(rows[1]?.error).toMatch(/node "local" is a daemon/);
    expect(sim.environments.get('gpu-x')?.deployed).toMatchObject({
      runner: 'llamacpp',
      servedModelName: 'tiny-x',
      instanceType: 'g6e.xlarge',
    });
    const stats = JSON.parse((await svc('remote', 'stats', 'gpu-x', '--json')).stdout) as {
      state: string;
      runner: string;
    };
    expect(stats).toMatchObject({ state: 'stopped', runner: 'llamacpp' });
  });

  it('start boots it and keeps it; status shows the engine and retainUntil, never the key', async () => {
    const started = await svc('remote', 'start', 'gpu-x', '--keep', '1h');
    expect(started.status, started.stderr).toBe(0);
    expect(started.stdout).toMatch(/state: +running/);
    expect(started.stdout).toMatch(/engine: +http:\/\/127\.0\.0\.1:\d+\/v1/);
    const status = JSON.parse((await svc('remote', 'status', 'gpu-x', '--json')).stdout) as {
      state: string;
      retainUntil?: string;
    };
    expect(status.state).toBe('running');
    expect(Date.parse(status.retainUntil ?? '')).toBeGreaterThan(Date.now());
    expect(sim.launches.get('gpu-x')).toBe(1);
  });

  it('keep, pause and stop make the protocol calls', async () => {
    const kept = await svc('remote', 'keep', 'gpu-x', '2h');
    expect(kept.stdout).toMatch(/gpu-x: kept until \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/);
    const paused = await svc('remote', 'pause', 'gpu-x', '--force');
    expect(paused.status, paused.stderr).toBe(0);
    const stopped = await svc('remote', 'stop', 'gpu-x');
    expect(stopped.status, stopped.stderr).toBe(0);
    const calls = sim.requests.map((request) => `${request.method} ${request.url}`);
    expect(calls).toContainEqual(
      expect.stringMatching(/^POST \/update\?env=gpu-x&cmd=set-keep&retainUntil=/),
    );
    expect(calls).toContain('POST /stop?env=gpu-x&action=pause&force=true');
    expect(calls).toContain('POST /stop?env=gpu-x');
    expect(JSON.parse((await svc('remote', 'status', 'gpu-x', '--json')).stdout)).toMatchObject({
      state: 'stopped',
    });
  });

  it('svc fleet start boots a remote node as deployed and svc fleet stop stops it', async () => {
    const started = await svc('fleet', 'start', 'gpu-x', '--json');
    expect(started.status, started.stderr).toBe(0);
    expect(JSON.parse(started.stdout)).toEqual([
      {
        node: 'gpu-x',
        outcome: 'ok',
        state: 'running',
        source: 'remote environment "gpu-x" as deployed',
      },
    ]);
    const status = await svc('fleet', 'status');
    expect(status.stdout).toMatch(/^gpu-x +running +tiny-x/m);
    const stopped = await svc('fleet', 'stop', 'gpu-x');
    expect(stopped.stdout).toMatch(/^gpu-x +stopped/m);
    // The deploy call pushed the config; waking pushed nothing.
    expect(sim.requests.filter((request) => request.url.startsWith('/deploy'))).toHaveLength(1);
  });

  it('rm removes the entry and names the closest on a typo', async () => {
    const typo = await svc('remote', 'rm', 'gpu-y');
    expect(typo.stderr).toContain('did you mean "gpu-x"?');
    expect((await svc('remote', 'rm', 'gpu-x')).stdout).toContain('removed remote environment');
    expect((await svc('remote', 'ls', '--json')).stdout.trim()).toBe('[]');
  });

  it('every call was signed and verified, and no key or credential was printed', () => {
    expect(sim.requests.length).toBeGreaterThan(5);
    expect(sim.requests.filter((request) => !request.verified)).toEqual([]);
    for (const secret of SECRETS) {
      expect(seen.join('\n')).not.toContain(secret);
    }
  });
});
