/**
 * Local nodes end to end (docs/design.md D27): the built `svc gateway` supervises two real
 * llama-server engines itself from a fleet file of `kind: local` nodes, serves an OpenAI-compatible
 * chat request to each, lists them in /v1/fleet, and leaves no engine behind: a SIGTERM stops every
 * engine (checked by PID), and an engine whose gateway and watchdog were SIGKILLed is reaped by
 * the next gateway over the same config dir. `svc up` beside such a file is that gateway in the
 * foreground, driven by `svc fleet` (start, status, logs once and followed, stop) and ended cleanly
 * by Ctrl+C (SIGINT).
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { freePort } from '../support/http/net.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { alive, killSurvivorsAfterTest } from '../support/processes/process-tree.ts';
import { startProcess, type TestProcess } from '../support/processes/processes.ts';
import {
  authorized,
  GATEWAY_TOKEN,
  localNodeFile,
  startTestGateway,
} from '../support/svc/gateway-fleet.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

let dir: string;
let bPort: number;

afterAll(endSharedByFile);

beforeAll(async () => {
  dir = await sharedByFile(() => tempDir());
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  bPort = await freePort();
  // Node a names no port (the gateway picks a free loopback one); b names its own in BASEURL.
  await writeFile(
    join(dir, 'a.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS alpha\nCONTEXT 256\n`,
  );
  await writeFile(
    join(dir, 'b.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS beta\nCONTEXT 256\nBASEURL 127.0.0.1:${bPort}\n`,
  );
  await writeFile(
    join(dir, 'fleet.yaml'),
    [
      'nodes:',
      '  - {name: a, kind: local, file: a.svc}',
      '  - {name: b, kind: local, file: b.svc}',
      '',
    ].join('\n'),
  );
});

function enginePid(gateway: TestProcess, node: string): number {
  const record = JSON.parse(readFileSync(localNodeFile(gateway, node, 'engine.pid'), 'utf8')) as {
    pid: number;
  };
  return record.pid;
}

/** The parent PID of a live process, from /proc. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** A short chat for `model` through the gateway at `url`: its status and parsed body. */
async function served(url: string, model: string): Promise<{ status: number; body: unknown }> {
  const reply = await chat(url, { model }, { headers: authorized() });
  return { status: reply.status, body: await reply.json() };
}

describe('local nodes', () => {
  it('serves a chat request to each local engine, lists them, and a SIGTERM leaves none', async () => {
    const configDir = join(dir, 'config-sigterm');
    const { gateway, url } = await startTestGateway({
      cwd: dir,
      configDir,
      logLevel: 'info',
      env: { PATH: testPath(), SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
    });
    // Under the fleet's own directory in the config dir (docs/design.md D27).
    expect(gateway.stdout()).toMatch(
      new RegExp(
        `local nodes a, b: engines run by this gateway, logs under ${join(configDir, 'fleets')}/[^/\\s]+-[0-9a-f]{8}/nodes\n`,
      ),
    );
    for (const model of ['alpha', 'beta']) {
      expect(await served(url, model)).toMatchObject({
        status: 200,
        body: { object: 'chat.completion', model },
      });
    }
    const pids = [enginePid(gateway, 'a'), enginePid(gateway, 'b')];
    killSurvivorsAfterTest(pids);
    expect(alive(pids)).toEqual(pids);

    const fleet = (await (await fetch(`${url}/v1/fleet`, { headers: authorized() })).json()) as {
      nodes: { name: string; kind: string; state: string; servedName?: string }[];
    };
    expect(
      fleet.nodes.map(({ name, kind, state, servedName }) => ({ name, kind, state, servedName })),
    ).toEqual([
      { name: 'a', kind: 'local', state: 'running', servedName: 'alpha' },
      { name: 'b', kind: 'local', state: 'running', servedName: 'beta' },
    ]);
    // b's engine is on the port its BASEURL names; a's was chosen free and is logged.
    expect((await fetch(`http://127.0.0.1:${bPort}/health`)).status).toBe(200);
    expect(gateway.stderr()).toMatch(/local node engine listening node=a port=\d+/);
    expect(readFileSync(localNodeFile(gateway, 'a', 'engine.log'), 'utf8')).not.toBe('');

    process.kill(gateway.pid, 'SIGTERM');
    expect(await gateway.exited()).toBe(0);
    expect(gateway.stdout()).toMatch(/svc gateway stopped\n$/);
    expect(alive(pids)).toEqual([]);
    // The gateway stopped them itself (not only its watchdogs' lifeline, docs/design.md D27).
    for (const pid of pids) {
      expect(gateway.stderr()).toContain(`stopping engine pid=${pid}`);
    }
  });

  it('reaps at start-up the engine a SIGKILLed gateway (and its watchdog) left running', async () => {
    const configDir = join(dir, 'config-sigkill');
    const first = await startTestGateway({
      cwd: dir,
      configDir,
      logLevel: 'info',
      env: { PATH: testPath() },
    });
    expect(await served(first.url, 'alpha')).toMatchObject({ status: 200 });
    const pid = enginePid(first.gateway, 'a');
    killSurvivorsAfterTest([pid]);
    // The watchdog would end the engine within seconds of the gateway's death; with it gone
    // too, only the next gateway's reaping can.
    const watchdog = parentOf(pid);
    process.kill(watchdog, 'SIGKILL');
    process.kill(first.gateway.pid, 'SIGKILL');
    await first.gateway.exited();
    await eventually(
      () => Promise.resolve(alive([watchdog])),
      (left) => left.length === 0,
      `the watchdog (pid ${watchdog}) gone`,
    );
    expect(alive([pid])).toEqual([pid]);

    const second = await startTestGateway({ cwd: dir, configDir, logLevel: 'info' });
    expect(alive([pid])).toEqual([]);
    expect(second.gateway.stderr()).toMatch(
      new RegExp(`WARN {2}stopped an engine left running by a previous gateway node=a pid=${pid}`),
    );
    process.kill(second.gateway.pid, 'SIGTERM');
    expect(await second.gateway.exited()).toBe(0);
  });

  it('svc up runs the gateway at the section address; svc fleet drives and reads it; Ctrl+C ends it', async () => {
    const upDir = await tempDir();
    const port = await freePort();
    await writeFile(
      join(upDir, 'fleet.yaml'),
      [
        'gateway:',
        `  url: http://127.0.0.1:${port}`,
        '  tokenEnv: GATEWAY_TOKEN',
        'nodes:',
        `  - {name: a, kind: local, file: ${join(dir, 'a.svc')}}`,
        '',
      ].join('\n'),
    );
    const up = startProcess(SVC, ['up'], {
      cwd: upDir,
      env: {
        ...process.env,
        PATH: testPath(),
        SVC_API_TOKEN: GATEWAY_TOKEN,
        SVC_CONFIG_DIR: join(upDir, 'config'),
        SVC_LOG_LEVEL: 'warn',
      },
    });
    await up.waitFor(/local nodes a: engines run by this gateway/);
    const health = await fetch(`http://127.0.0.1:${port}/health`, { headers: authorized() });
    expect(health.status).toBe(200);
    // svc fleet reaches the local node through the gateway the section names (docs/design.md D27).
    const fleetEnv = { GATEWAY_TOKEN, SVC_CONFIG_DIR: join(upDir, 'config-fleet') };
    const started = await runSvc(['fleet', 'start', 'a'], { cwd: upDir, env: fleetEnv });
    expect(started).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/a +running/) as string,
    });
    const status = await runSvc(['fleet', 'status', '--json'], { cwd: upDir, env: fleetEnv });
    expect(JSON.parse(status.stdout)).toMatchObject([
      { node: 'a', outcome: 'ok', status: { state: 'running', servedName: 'alpha' } },
    ]);
    // docs/design.md D25: once the engine is ready its busy is known as well as its slots, read as
    // it turned ready rather than at the next sample tick (15 s here): BUSY reads 0/<slots>, not
    // ?/….
    const ready = await eventually(
      () => runSvc(['fleet', 'status', '--json'], { cwd: upDir, env: fleetEnv }),
      (run) => run.status !== 0 || /"ready": "ready"/.test(run.stdout),
      'svc fleet status showing node a ready',
    );
    const [{ status: readyStatus }] = JSON.parse(ready.stdout) as [{ status: { slots: number } }];
    const table = await runSvc(['fleet', 'status'], { cwd: upDir, env: fleetEnv });
    const [header = '', row = ''] = table.stdout.split('\n');
    const busyAt = header.indexOf('BUSY');
    expect(busyAt).toBeGreaterThan(0);
    expect(row.slice(busyAt).split(/ +/)[0]).toBe(`0/${String(readyStatus.slots)}`);
    // svc fleet logs reads the real engine's log through the gateway: once, and followed (-f).
    const logs = await eventually(
      () => runSvc(['fleet', 'logs', 'a'], { cwd: upDir, env: fleetEnv }),
      (run) => run.status !== 0 || /llama_server: model loaded/.test(run.stdout),
      "svc fleet logs a showing llama-server's model loaded line",
    );
    expect(logs).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/llama_server: model loaded/) as string,
    });
    const follow = startProcess(SVC, ['fleet', 'logs', '-f', 'a'], {
      cwd: upDir,
      env: { ...process.env, PATH: testPath(), SVC_LOG_LEVEL: '', SVC_ALIAS: '', ...fleetEnv },
    });
    await follow.waitFor(/llama_server: model loaded/);
    process.kill(follow.pid, 'SIGINT');
    expect(await follow.exited()).toBe(0);
    for (const text of [logs.stdout, logs.stderr, follow.output()]) {
      expect(text).not.toContain(GATEWAY_TOKEN);
    }
    const stopped = await runSvc(['fleet', 'stop', 'a'], { cwd: upDir, env: fleetEnv });
    expect(stopped).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/a +stopped/) as string,
    });
    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
    expect(up.stdout()).toMatch(
      new RegExp(`^svc gateway for \\S+ listening on http://127\\.0\\.0\\.1:${port}\\n`),
    );
    expect(up.stdout()).toMatch(/svc gateway stopped\n$/);
  });

  it('svc up takes -f, --listen, --wake-timeout and --log-level over the file; status says once that no gateway answers', async () => {
    const upDir = await tempDir();
    const elsewhere = await tempDir();
    const sectionPort = await freePort();
    const fleetFile = join(upDir, 'fleet.yaml');
    await writeFile(
      fleetFile,
      [
        'gateway:',
        `  url: http://127.0.0.1:${sectionPort}`,
        'nodes:',
        `  - {name: a, kind: local, file: ${join(dir, 'a.svc')}}`,
        `  - {name: b, kind: local, file: ${join(dir, 'b.svc')}}`,
        '',
      ].join('\n'),
    );
    const env = { SVC_API_TOKEN: '', SVC_CONFIG_DIR: join(upDir, 'config') };

    // No gateway runs yet: one sentence says so, not one per local node and one more.
    const down = await runSvc(['fleet', 'status', '-f', fleetFile], { cwd: elsewhere, env });
    expect(down.status).toBe(0);
    expect(down.stdout).toContain(
      `note: no gateway answers at http://127.0.0.1:${sectionPort} (connect ECONNREFUSED 127.0.0.1:${sectionPort}): it runs the local nodes a, b;`,
    );
    expect(down.stdout.match(/ECONNREFUSED/g)).toHaveLength(1);

    // The gateway's own refusal of a bad --wake-timeout: the flag reaches it.
    const badWake = await runSvc(['up', '-f', fleetFile, '--wake-timeout', 'soon'], {
      cwd: elsewhere,
      env,
    });
    expect(badWake.status).toBe(2);
    expect(badWake.stderr).toContain('--wake-timeout "soon" is not a duration');

    // From another directory: -f names the file, --listen wins over the section's address, and
    // --log-level over SVC_LOG_LEVEL (debug lines while the variable says warn).
    const port = await freePort();
    const up = startProcess(
      SVC,
      [
        'up',
        '-f',
        fleetFile,
        '--listen',
        `127.0.0.1:${port}`,
        '--wake-timeout',
        '2m',
        '--log-level',
        'debug',
      ],
      {
        cwd: elsewhere,
        env: { ...process.env, PATH: testPath(), ...env, SVC_LOG_LEVEL: 'warn' },
      },
    );
    await up.waitFor(/local nodes a, b: engines run by this gateway/);
    expect(up.stdout()).toMatch(
      new RegExp(`^svc gateway for ${fleetFile} listening on http://127\\.0\\.0\\.1:${port}\\n`),
    );
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    await up.waitFor(/DEBUG +api request .*path=\/health/);
    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
  });
});
