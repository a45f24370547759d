/**
 * `svc fleet` for daily use and `svc up`, end to end: the built CLI against a real `svc daemon`
 * running the real llama-server on the generated model, a second real daemon with nothing
 * running, and a node whose token variable is set nowhere (a configuration error, never a
 * failure of the command). No gateway: every command talks to the nodes themselves.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { startProcess } from '../support/processes/processes.ts';
import { freePort, waitForStatus } from '../support/svc/daemon.ts';
import { ENGINE_KEY, NODE_TOKEN } from '../support/svc/gateway-fleet.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';
import { threeNodeFleet } from '../support/svc/three-node-fleet.ts';

async function complete(port: number): Promise<void> {
  const reply = await fetch(`http://127.0.0.1:${port}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ENGINE_KEY}` },
    body: JSON.stringify({ prompt: 'hello world', max_tokens: 4 }),
  });
  expect(reply.status).toBe(200);
  await reply.text();
}

describe('svc fleet everyday commands on real daemons', () => {
  it('status, route, up, start/stop, metrics and logs', async () => {
    const test = await threeNodeFleet();
    const svc = (args: string[]) => runSvc(args, { cwd: test.dir });

    // status: a row per node, the misconfigured one saying why; exit 0 all the same.
    const status = await svc(['fleet', 'status']);
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(
      /^NODE +STATE +SERVING +LAST ACTIVE\ngpu-a +idle *\ngpu-b +idle *\n/,
    );
    expect(status.stdout).toMatch(
      /gpu-c +config-error +GPU_C_TOKEN is not set \(tokenEnv\): export it, or put it in the \.env beside /,
    );
    // Filters: the named nodes only; an unknown name is refused with the closest and the list.
    expect((await svc(['fleet', 'status', 'gpu-b'])).stdout).toMatch(/^NODE.*\ngpu-b +idle *\n$/);
    const unknown = await svc(['fleet', 'status', 'gpu-x']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain(
      'no node named "gpu-x" in ' +
        join(test.dir, 'fleet.yaml') +
        ': did you mean "gpu-a"? (nodes: gpu-a, gpu-b, gpu-c)',
    );

    // route: nothing serves tiny, so a request would wake gpu-a; asking starts nothing.
    const wake = await svc(['fleet', 'route', 'tiny', '--json']);
    expect(wake.status).toBe(0);
    expect(JSON.parse(wake.stdout)).toMatchObject({ action: 'wake', node: 'gpu-a' });
    const explained = (await svc(['fleet', 'route', 'tiny'])).stdout;
    expect(explained).toMatch(/\n {2}gpu-b +other +its source describes tiny-b, not tiny\n/);
    expect(explained).toMatch(/\n {2}gpu-c +unreachable +config-error: GPU_C_TOKEN is not set/);
    const none = await svc(['fleet', 'route', 'nothing-serves-this']);
    expect(none.status).toBe(1);
    expect(none.stdout).toContain('nothing-serves-this: refused (no_node)');
    expect((await test.gpuA.call('GET', '/v1/status')).json).toMatchObject({ state: 'idle' });

    // up beside a fleet.yaml: fleet start of the named node; again: already running, exit 0.
    const up = await svc(['up', 'gpu-a']);
    expect(up.stdout).toBe(`gpu-a: using ${join(test.dir, 'gpu-a.svc')}\ngpu-a  running\n`);
    expect(up.status).toBe(0);
    const again = await svc(['fleet', 'start', 'gpu-a', '--json']);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([
      { node: 'gpu-a', outcome: 'already', state: 'running' },
    ]);
    expect((await svc(['fleet', 'start', 'gpu-a'])).stdout).toBe('gpu-a  already running (tiny)\n');

    // route: gpu-a serves tiny now, at its engine address.
    const serve = await svc(['fleet', 'route', 'tiny']);
    expect(serve.stdout).toMatch(
      /^tiny → gpu-a \(serve\): "gpu-a" serves tiny and has a free slot\n/,
    );
    expect(serve.stdout).toContain(`engine: http://127.0.0.1:${test.enginePort}/v1`);

    // metrics: the running node's counters once a request went through; the others as rows.
    await complete(test.enginePort);
    const metrics = await svc(['fleet', 'metrics', '--json']);
    expect(metrics.status).toBe(0);
    const entries = JSON.parse(metrics.stdout) as {
      node: string;
      outcome: string;
      metrics?: { state: string; servedName?: string };
    }[];
    expect(entries.map((entry) => [entry.node, entry.outcome])).toEqual([
      ['gpu-a', 'ok'],
      ['gpu-b', 'ok'],
      ['gpu-c', 'config-error'],
    ]);
    expect(entries[0]?.metrics).toMatchObject({ state: 'running', servedName: 'tiny' });
    const table = await svc(['fleet', 'metrics', 'gpu-a']);
    expect(table.stdout).toMatch(
      /^NODE +STATE +MODEL +IN FLIGHT +REQUESTS .*\ngpu-a +running\S* +tiny /,
    );

    // metrics -w: frame after frame until a signal, then exit 0.
    const watch = startProcess(process.execPath, [SVC, 'fleet', 'metrics', 'gpu-a', '-w'], {
      cwd: test.dir,
      env: { ...process.env, SVC_LOG_LEVEL: '' },
    });
    await watch.waitFor(/NODE[\s\S]*gpu-a[\s\S]*NODE[\s\S]*gpu-a/, 30_000);
    process.kill(watch.pid, 'SIGINT');
    expect(await watch.exited()).toBe(0);

    // logs: one node's engine log as is; several nodes prefixed by name.
    const logs = await svc(['fleet', 'logs', 'gpu-a']);
    expect(logs.status).toBe(0);
    expect(logs.stdout).toMatch(/llama_server: model loaded/);
    const several = await svc(['fleet', 'logs', 'gpu-a', 'gpu-b']);
    expect(
      several.stdout
        .split('\n')
        .filter(Boolean)
        .every((line) => line.startsWith('gpu-a | ')),
    ).toBe(true);
    expect(several.stderr).toContain('svc: gpu-b: no engine log yet');
    const blocked = await svc(['fleet', 'logs', 'gpu-c']);
    expect(blocked.status).toBe(1);
    expect(blocked.stderr).toContain('svc: gpu-c: GPU_C_TOKEN is not set (tokenEnv)');

    // logs -f follows through an engine restart: the new engine's lines arrive, once each.
    const follow = startProcess(
      process.execPath,
      [SVC, 'fleet', 'logs', '-f', 'gpu-a', '--fleet', join(test.dir, 'fleet.yaml')],
      { env: { ...process.env, SVC_LOG_LEVEL: '' } },
    );
    await follow.waitFor(/llama_server: model loaded/, 30_000);
    const listening = (): number =>
      (follow.stdout().match(/llama_server: model loaded/g) ?? []).length;
    const before = listening();
    expect((await svc(['fleet', 'stop', 'gpu-a'])).stdout).toBe('gpu-a  stopped\n');
    expect((await svc(['fleet', 'start', 'gpu-a'])).status).toBe(0);
    await follow.waitFor(
      new RegExp(`(llama_server: model loaded[\\s\\S]*){${before + 1}}`),
      60_000,
    );
    process.kill(follow.pid, 'SIGINT');
    expect(await follow.exited()).toBe(0);
    expect(listening()).toBe(before + 1);

    // stop twice: the second reports it and succeeds.
    expect((await svc(['fleet', 'stop', 'gpu-a'])).stdout).toBe('gpu-a  stopped\n');
    const stopped = await svc(['fleet', 'stop', 'gpu-a', 'gpu-b']);
    expect(stopped.status).toBe(0);
    expect(stopped.stdout).toBe('gpu-a  already stopped\ngpu-b  not running (idle)\n');

    // Nothing printed carries the node token or the engine key.
    for (const text of [test.gpuA.process.output(), follow.output(), watch.output()]) {
      expect(text).not.toContain(NODE_TOKEN);
      expect(text).not.toContain(ENGINE_KEY);
    }
  });

  it('svc up without a fleet.yaml is svc serve with its target rules', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const port = await freePort();
    // Neither a fleet.yaml nor a Svcfile here: the refusal names both things svc up looked for.
    const missing = await runSvc(['up'], { cwd: dir, env: { SVC_CONFIG_DIR: join(dir, 'c') } });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(
      `no fleet.yaml or Svcfile in ${dir}: run svc up beside a fleet file (or pass -f <path>), or pass a Svcfile path`,
    );
    // A gateway flag where no gateway would run is refused, not ignored.
    const listen = await runSvc(['up', '--listen', '127.0.0.1:0'], { cwd: dir });
    expect(listen.status).toBe(2);
    expect(listen.stderr).toContain('--listen is for the gateway svc up runs beside a fleet file');
    const two = await runSvc(['up', 'a', 'b'], { cwd: dir });
    expect(two.status).toBe(2);
    expect(two.stderr).toContain('there is none in');

    // ./Svcfile: the engine runs in the foreground until a signal, exactly as svc serve.
    await writeFile(
      join(dir, 'Svcfile'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${port}\n`,
    );
    const up = startProcess(process.execPath, [SVC, 'up'], {
      cwd: dir,
      env: { ...process.env, PATH: testPath(), SVC_CONFIG_DIR: join(dir, 'c'), SVC_LOG_LEVEL: '' },
    });
    await waitForStatus(`http://127.0.0.1:${port}/health`, 200, {}, 60_000);
    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
    expect(up.output()).toContain('llama-server');
  });
});
