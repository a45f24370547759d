/**
 * `svc code --node <a remote node>` end to end (spec §4.2 last paragraph, docs/design.md D21): the
 * built CLI reaches the node only through its kind's driver, so a remote environment served by the
 * control-plane simulator (SigV4-verified, its instance a real llama-server on the tiny model)
 * is asked through its control plane, never as a daemon at a host it does not have.
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
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

const ENGINE_KEY = 'engine-key-code-remote-5d2e';
const SECRETS = [ENGINE_KEY, FAKE_AWS.AWS_SECRET_ACCESS_KEY, FAKE_AWS.AWS_ACCESS_KEY_ID];

let dir = '';
let sim: ControlPlaneSimulator;
let closeSim = (): Promise<void> => Promise.resolve();

/** `svc <args>` in the fleet's directory, with the simulator's credentials and the engine key. */
function svc(args: readonly string[]): ReturnType<typeof runSvc> {
  return runSvc(args, {
    cwd: dir,
    env: {
      ...fakeAwsEnv(dir),
      SVC_CONFIG_DIR: join(dir, 'config'),
      ENGINE_KEY,
      OPENAI_API_KEY: undefined,
    },
  });
}

beforeAll(() => sharedByFile(setUp));

async function setUp(): Promise<void> {
  dir = await tempDir();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  sim = await startControlPlane({ engineKey: ENGINE_KEY, modelPath: model, workDir: dir });
  closeSim = () => sim.close();
  sim.environments.set('gpu', {
    deployed: { runner: 'llamacpp', modelId: 'tiny-remote', servedModelName: 'tiny-remote' },
  });
  const entry = join(dir, 'config', 'remotes', 'gpu');
  await mkdir(entry, { recursive: true });
  await writeFile(join(entry, 'remote.json'), JSON.stringify(sim.registryEntry('gpu')));
  await writeFile(
    join(dir, 'fleet.yaml'),
    'apiKeyEnv: ENGINE_KEY\nnodes:\n  - {name: gpu, kind: remote}\n',
  );
}

afterAll(async () => {
  // The simulator first: its instances are killed by PID, then the files.
  await closeSim();
  await endSharedByFile();
});

describe('svc code --node <a remote node>', () => {
  it('asks a stopped remote node through its control plane and says to start it', async () => {
    const run = await svc(['code', '--node', 'gpu', '--config']);
    expect(run.stderr).not.toContain('Invalid URL');
    expect(run.stderr).toContain(
      'node "gpu" is stopped, serving nothing: start it with svc fleet start gpu',
    );
    expect(run.status).toBe(2);
    expect(sim.requests.some((request) => request.url === '/start?env=gpu')).toBe(true);
  });

  it("--config points the agent at the running environment's engine, its key as a variable", async () => {
    const started = await svc(['fleet', 'start', 'gpu']);
    expect(started.status, started.stderr).toBe(0);
    const run = await svc(['code', '--node', 'gpu', '--config']);
    expect(run.status, run.stderr).toBe(0);
    const match = /→ (http:\/\/127\.0\.0\.1:\d+\/v1) \(svc node gpu, model tiny-remote\)/.exec(
      run.stdout,
    );
    expect(match, run.stdout).not.toBeNull();
    expect(run.stdout).toContain('# The key: ENGINE_KEY must hold the token');
    // The published engine really answers there, with that key.
    const reply = await fetch(`${match?.[1] ?? ''}/models`, {
      headers: { authorization: `Bearer ${ENGINE_KEY}` },
    });
    expect(reply.status).toBe(200);
    expect(sim.requests.filter((request) => !request.verified)).toEqual([]);
    for (const secret of SECRETS) {
      expect(`${run.stdout}${run.stderr}${started.stdout}${started.stderr}`).not.toContain(secret);
    }
  });
});
