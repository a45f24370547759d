/**
 * An upstream node seen everywhere (docs/design.md D30), through the built CLI: a real `svc daemon`
 * whose Svcfile runs the real llama-server on the tiny model (not started: a request would wake
 * it), an upstream node on the fake OpenAI server (test/support/fakes/fake-openai.ts) with a key,
 * and a waking fallback to it. `svc fleet status`, `svc fleet metrics` and the dashboard show the
 * upstream node's kind, state and models; `svc fleet route` says a request would go to the
 * upstream or its fallback, worked out from the nodes' status alone and then as the live gateway
 * answers it. The key shows in no output.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type FakeOpenai, fakeOpenai } from '../support/fakes/fake-openai.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { startTmux, svcInPane } from '../support/screens/tmux.ts';
import { freePort, startTestDaemon } from '../support/svc/daemon.ts';
import { GATEWAY_TOKEN, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

const KEY = 'sk-upstream-views-secret-91c4';
const FALLBACK =
  'upstream node "hosted" answers tiny as its fallback (waking); "gpu" is woken for tiny meanwhile';

let dir: string;
let fake: FakeOpenai;
let lines: string[];
const env = { HOSTED_KEY: KEY, GW_TOKEN: GATEWAY_TOKEN };

afterAll(async () => {
  await fake.close();
  await endSharedByFile();
});

beforeAll(() => sharedByFile(setUp));

async function setUp(): Promise<void> {
  dir = await tempDir();
  fake = await fakeOpenai();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  const gpu = await startTestDaemon({ configDir: join(dir, 'config-gpu') });
  await writeFile(
    join(dir, 'gpu.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${await freePort()}\n`,
  );
  lines = [
    'fallbacks:',
    '  tiny: {to: hosted, when: [waking]}',
    'nodes:',
    `  - {name: gpu, host: 127.0.0.1, port: ${new URL(gpu.url).port}, file: gpu.svc}`,
    `  - {name: hosted, kind: upstream, url: "${fake.url}", apiKeyEnv: HOSTED_KEY, models: {tiny: vendor/tiny, big: vendor/big}}`,
  ];
  await writeFile(join(dir, 'fleet.yaml'), `${lines.join('\n')}\n`);
  // The dashboard's pane gets the key from the .env beside the fleet file, not its command line.
  await writeFile(join(dir, '.env'), `HOSTED_KEY=${KEY}\n`);
}

async function svc(...args: string[]): Promise<string> {
  const run = await runSvc(args, { cwd: dir, env });
  expect(run.stdout + run.stderr).not.toContain(KEY);
  return run.stdout;
}

describe('an upstream node in svc fleet status, metrics, route and the dashboard', () => {
  it('shows its kind, state and models, and where a request would go, from status alone', async () => {
    const status = await svc('fleet', 'status');
    expect(status).toMatch(/^NODE +STATE +KIND +SERVING/);
    expect(status).toMatch(/\nhosted +running +upstream +tiny, big\n/);
    expect(JSON.parse(await svc('fleet', 'status', '--json'))).toContainEqual(
      expect.objectContaining({ node: 'hosted', kind: 'upstream', models: ['tiny', 'big'] }),
    );
    expect(await svc('fleet', 'metrics')).toMatch(/\nhosted +running +tiny, big/);

    const wake = JSON.parse(await svc('fleet', 'route', 'tiny', '--json')) as Record<
      string,
      unknown
    >;
    expect(wake).toMatchObject({ action: 'fallback', node: 'hosted', reason: FALLBACK });
    const text = await svc('fleet', 'route', 'tiny');
    expect(text).toMatch(/^tiny → hosted \(fallback\): /);
    expect(text).toMatch(/\n {2}gpu +wake +woken for tiny while the fallback answers\n/);
    expect(text).toContain("worked out from the nodes' status alone");
    expect(await svc('fleet', 'route', 'big')).toMatch(
      /^big → hosted \(serve\): upstream node "hosted" serves big/,
    );
  });

  it('says the same as the live gateway does', async () => {
    const { gateway, url } = await startTestGateway({
      cwd: dir,
      configDir: join(dir, 'config'),
      logLevel: 'info',
      env: { HOSTED_KEY: KEY },
    });
    await writeFile(
      join(dir, 'fleet.yaml'),
      `${[`gateway: {url: ${url}, tokenEnv: GW_TOKEN}`, ...lines].join('\n')}\n`,
    );
    const text = await svc('fleet', 'route', 'tiny');
    expect(text).toContain('the live decision of the gateway');
    expect(text).toMatch(/^tiny → hosted \(fallback\): /);
    expect(text).toContain(FALLBACK);
    expect(await svc('fleet', 'status')).toMatch(/\nhosted +running +upstream +tiny, big\n/);
    await gateway.kill();
    expect(gateway.output()).not.toContain(KEY);
    await writeFile(join(dir, 'fleet.yaml'), `${lines.join('\n')}\n`);
  });

  it('has a dashboard row of its state and models', async () => {
    const term = await startTmux(
      svcInPane(['fleet', 'dashboard', '-f', join(dir, 'fleet.yaml')], {
        SVC_CONFIG_DIR: join(dir, 'config'),
        HOME: dir,
      }),
      120,
      20,
    );
    const screen = await term.waitFor(/hosted +running +.*tiny, big/, 30_000);
    expect(screen).not.toContain(KEY);
    await term.keys('q');
    expect(await term.waitFor(/svc exited \d+/)).toContain('svc exited 0');
  });
});
