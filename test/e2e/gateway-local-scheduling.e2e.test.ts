/**
 * Scheduling on local nodes (docs/design.md D26, D27), end to end: the built gateway runs the real
 * llama-server on the tiny model itself, from fleet files of `kind: local` nodes, with short
 * settings. An idle local node's engine is stopped and woken again by the next request, while a
 * keep-warm one starts with the gateway and outlives the idle stop; a group of one swaps its two
 * members and never runs both engines, even under concurrent requests for both (watched on the
 * process table); a gateway SIGKILLed with two engines running leaves none, its watchdogs ending
 * both with no next gateway to reap them; and a llama-swap configuration imported by
 * `svc import llama-swap` serves both its models through `svc up`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { freePort } from '../support/http/net.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { findLlamaServer, testPath } from '../support/prerequisites/engines.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import {
  enginesUnder,
  localNodesWithEngines,
  watchEngines,
} from '../support/processes/engine-watch.ts';
import { alive, killSurvivorsAfterTest, processTree } from '../support/processes/process-tree.ts';
import { startProcess } from '../support/processes/processes.ts';
import { authorized, GATEWAY_TOKEN, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { chat } from '../support/svc/scale-to-zero.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

let dir: string;
let model: string;

afterAll(endSharedByFile);

beforeAll(async () => {
  dir = await sharedByFile(() => tempDir());
  model = await writeTinyModel(join(dir, 'tiny.gguf'));
  // Neither names a port: the gateway picks a free loopback one for each engine it starts.
  for (const alias of ['alpha', 'beta']) {
    await writeFile(
      join(dir, `${alias}.svc`),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\nCONTEXT 256\n`,
    );
  }
});

/** The gateway over `<name>.yaml` (its lines) in the shared directory, its own config dir. */
async function localGateway(name: string, lines: readonly string[]) {
  const fleet = join(dir, `${name}.yaml`);
  await writeFile(fleet, `${lines.join('\n')}\n`);
  return startTestGateway({
    cwd: dir,
    configDir: join(dir, `config-${name}`),
    args: ['--fleet', fleet],
    logLevel: 'info',
    env: { PATH: testPath(), SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
  });
}

/** Each node's state as the gateway's /v1/fleet reports it. */
async function states(url: string): Promise<Record<string, string>> {
  const reply = await fetch(`${url}/v1/fleet`, { headers: authorized() });
  const body = (await reply.json()) as { nodes: { name: string; state: string }[] };
  return Object.fromEntries(body.nodes.map(({ name, state }) => [name, state]));
}

/** The PID of the live engine serving `alias` under the gateway; throws when there is none. */
function engineServing(gatewayPid: number, alias: string): number {
  const engine = enginesUnder(gatewayPid).find((each) => each.alias === alias);
  if (engine === undefined) {
    throw new Error(`no engine serving ${alias} under the gateway (pid ${gatewayPid})`);
  }
  return engine.pid;
}

describe('scheduling on local nodes', () => {
  it('stops an idle local node, wakes it for the next request, and keeps a keep-warm one', async () => {
    const { gateway, url } = await localGateway('idle', [
      'idleStop: 3s',
      'nodes:',
      '  - {name: warm, kind: local, file: alpha.svc, keepWarm: on}',
      '  - {name: cold, kind: local, file: beta.svc}',
    ]);
    const aliases = { warm: 'alpha', cold: 'beta' };
    // No request yet: the keep-warm node's engine starts with the gateway; the other is left alone.
    await eventually(
      () => states(url),
      (now) => now['warm'] === 'running',
      'warm running',
    );
    const warmPid = engineServing(gateway.pid, 'alpha');
    killSurvivorsAfterTest([warmPid]);
    expect(localNodesWithEngines(gateway.pid, aliases)).toEqual(['warm']);
    expect((await states(url))['cold']).toBe('idle');

    expect(await chat(url, 'beta')).toBe('200 chat.completion');
    const coldPid = engineServing(gateway.pid, 'beta');
    killSurvivorsAfterTest([coldPid]);
    // Nothing since: its engine is stopped, by the gateway, for idleness.
    await eventually(
      () => states(url),
      (now) => now['cold'] === 'stopped',
      'cold stopped',
      { timeoutMs: 60_000 },
    );
    expect(alive([coldPid])).toEqual([]);
    expect(gateway.stderr()).toMatch(/stopping idle node.*node=cold/);
    // The keep-warm node has been idle longer than that, and runs on: the same engine, never stopped.
    expect((await states(url))['warm']).toBe('running');
    expect(alive([warmPid])).toEqual([warmPid]);
    expect(gateway.stderr()).not.toMatch(/stopping idle node.*node=warm/);

    // The next request wakes the idle node, with a new engine, and is answered.
    expect(await chat(url, 'beta')).toBe('200 chat.completion');
    const woken = engineServing(gateway.pid, 'beta');
    killSurvivorsAfterTest([woken]);
    expect(woken).not.toBe(coldPid);
    expect((await states(url))['cold']).toBe('running');
    expect(localNodesWithEngines(gateway.pid, aliases)).toEqual(['warm', 'cold']);
  });

  it('a group of one over two local nodes swaps them and never runs both engines', async () => {
    const { gateway, url } = await localGateway('group', [
      'groups: {gpu: {max: 1, minResidency: 1s}}',
      'nodes:',
      '  - {name: a, kind: local, file: alpha.svc, group: gpu}',
      '  - {name: b, kind: local, file: beta.svc, group: gpu}',
    ]);
    const aliases = { a: 'alpha', b: 'beta' };
    const watch = watchEngines(() => localNodesWithEngines(gateway.pid, aliases));

    expect(await chat(url, 'alpha')).toBe('200 chat.completion');
    expect(localNodesWithEngines(gateway.pid, aliases)).toEqual(['a']);
    // Model B while A is loaded: A is stopped, then B started, and the request is served.
    expect(await chat(url, 'beta')).toBe('200 chat.completion');
    expect(localNodesWithEngines(gateway.pid, aliases)).toEqual(['b']);
    await eventually(
      () => states(url),
      (now) => now['a'] === 'stopped' && now['b'] === 'running',
      'a swapped out for b',
    );
    expect(gateway.stderr()).toMatch(/stopping node for a swap.*node=a/);

    // Concurrent requests for both models: every one answered, one engine at a time.
    const replies = await Promise.all(
      ['alpha', 'beta', 'alpha', 'beta', 'alpha', 'beta'].map((name) => chat(url, name)),
    );
    expect(replies).toEqual(Array(6).fill('200 chat.completion'));
    watch.stop();
    expect(watch.overlaps).toEqual([]);
    expect(watch.busySamples).toBeGreaterThan(0);
  });

  it('a gateway SIGKILLed with two engines running leaves none: its watchdogs end both', async () => {
    const { gateway, url } = await localGateway('sigkill', [
      'nodes:',
      '  - {name: a, kind: local, file: alpha.svc}',
      '  - {name: b, kind: local, file: beta.svc}',
    ]);
    expect(await chat(url, 'alpha')).toBe('200 chat.completion');
    expect(await chat(url, 'beta')).toBe('200 chat.completion');
    const engines = [engineServing(gateway.pid, 'alpha'), engineServing(gateway.pid, 'beta')];
    // The engines and the watchdogs between them and the gateway.
    const below = processTree(gateway.pid).filter((pid) => pid !== gateway.pid);
    killSurvivorsAfterTest(below);
    expect(below).toEqual(expect.arrayContaining(engines));
    expect(below.length).toBeGreaterThan(engines.length);

    // No signal handler runs and no next gateway reaps: only the watchdogs' lifelines are left.
    process.kill(gateway.pid, 'SIGKILL');
    expect(await gateway.exited()).toBe('SIGKILL');
    await eventually(
      () => Promise.resolve(alive(below)),
      (left) => left.length === 0,
      `both engines (pids ${engines.join(', ')}) and their watchdogs gone`,
      { timeoutMs: 60_000 },
    );
  });

  it('svc import llama-swap: the imported configuration serves both models through svc up', async () => {
    const importDir = await tempDir();
    const llamaServer = findLlamaServer();
    // llama-swap's documented format: a macro, a multi-line cmd, a group that does not swap, and
    // a model preloaded at start-up.
    await writeFile(
      join(importDir, 'config.yaml'),
      [
        'healthCheckTimeout: 60',
        'macros:',
        `  "server": ${llamaServer} --port \${PORT} -m ${model}`,
        'models:',
        '  "alpha":',
        '    cmd: ${server} -c 256',
        '  "beta":',
        '    cmd: |',
        '      # the same model under another name',
        '      ${server}',
        '      -c 256',
        'groups:',
        '  "both":',
        '    swap: false',
        '    members: ["alpha", "beta"]',
        'hooks:',
        '  on_startup:',
        '    preload: ["alpha"]',
        '',
      ].join('\n'),
    );
    const imported = await runSvc(['import', 'llama-swap', 'config.yaml'], { cwd: importDir });
    expect(imported).toMatchObject({ status: 0, stderr: '' });
    expect(imported.stdout).toMatch(
      /^wrote fleet\.yaml\nwrote \.env\nwrote alpha\/Svcfile\nwrote beta\/Svcfile\n/,
    );
    // A cmd that runs llama-server by path keeps running that build (docs/svcfile.md ENGINE).
    const svcfile = await readFile(join(importDir, 'alpha', 'Svcfile'), 'utf8');
    expect(svcfile).toMatch(new RegExp(`^ENGINE +${llamaServer}$`, 'm'));

    // svc up listens where the imported gateway section says (moved to a free loopback port
    // here), with the token the import put in the .env beside it (set to the test's own).
    const port = await freePort();
    const fleetPath = join(importDir, 'fleet.yaml');
    const fleet = await readFile(fleetPath, 'utf8');
    expect(fleet).toContain('url: http://127.0.0.1:8080');
    await writeFile(fleetPath, fleet.replace('http://127.0.0.1:8080', `http://127.0.0.1:${port}`));
    await writeFile(join(importDir, '.env'), `GATEWAY_TOKEN=${GATEWAY_TOKEN}\n`);
    const up = startProcess(SVC, ['up'], {
      cwd: importDir,
      env: {
        ...process.env,
        PATH: testPath(),
        SVC_API_TOKEN: '',
        SVC_CONFIG_DIR: join(importDir, 'config'),
        SVC_LOG_LEVEL: 'info',
        SVC_SAMPLE_INTERVAL_SECONDS: '0.3',
      },
    });
    const [, url = ''] = await up.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    // The preloaded model is kept warm: started with the gateway, before any request.
    await eventually(
      () => states(url),
      (now) => now['alpha'] === 'running',
      'alpha running',
    );

    expect(await chat(url, 'alpha')).toBe('200 chat.completion');
    expect(await chat(url, 'beta')).toBe('200 chat.completion');
    // A group that does not swap: both engines run together.
    const aliases = { alpha: 'alpha', beta: 'beta' };
    const engines = enginesUnder(up.pid).map((engine) => engine.pid);
    killSurvivorsAfterTest(engines);
    expect(localNodesWithEngines(up.pid, aliases)).toEqual(['alpha', 'beta']);
    expect(await states(url)).toEqual({ alpha: 'running', beta: 'running' });

    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
    expect(alive(engines)).toEqual([]);
  });
});
