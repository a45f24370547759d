/**
 * One Svcfile, one engine command, end to end (spec §1.3 rule 2): `svc fleet start` sends a real
 * daemon the config a Svcfile resolves to, and the engine the daemon starts gets the flags
 * `svc serve -n --api` prints for that Svcfile, a preset's ctx-size unscaled. The BASEURL's path
 * reaches the status's `engine.path` on both (spec §2.2). The engine is the fake one: it prints the
 * argv it was started with, and a hub repo it would never download.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { startProcess } from '../support/processes/processes.ts';
import { invocationOf } from '../support/project-files/engine-parity.ts';
import { FAKE_BIN_DIR, freePort, startTestDaemon } from '../support/svc/daemon.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';

const PATH = `${FAKE_BIN_DIR}:${process.env['PATH'] ?? ''}`;

/** The argv the fake engine says it was started with, as `llama-server …`. */
function startedWith(log: string): string[] {
  const line = /fake-engine argv: (\[.*\])/.exec(log)?.[1];
  expect(line, 'the engine printed its argv').toBeDefined();
  return ['llama-server', ...(JSON.parse(line ?? '[]') as string[])];
}

describe('a fleet node started from a Svcfile', () => {
  it('runs the engine command serve prints, and reports the BASEURL path', async () => {
    const dir = await tempDir();
    const port = await freePort();
    await writeFile(
      join(dir, 'Svcfile'),
      [
        'PROVIDER llamacpp',
        'ALIAS qwen',
        'PARALLEL 2',
        'PRESET preset.ini',
        `BASEURL 127.0.0.1:${port}/api/v1`,
        '',
      ].join('\n'),
    );
    await writeFile(join(dir, 'preset.ini'), '[qwen]\nhf = org/q\nctx-size = 32768\nnp = 3\n');
    const printed = await runSvc(['serve', '-n', '--api', dir], { env: { PATH } });
    expect(printed.status).toBe(0);
    const serveArgv = ['llama-server', ...printed.stdout.trim().split(' ').slice(1)];
    expect(serveArgv.join(' ')).toContain('--ctx-size 32768 --parallel 2');

    const configDir = join(dir, 'node');
    const node = await startTestDaemon({ configDir, path: [FAKE_BIN_DIR] });
    await writeFile(
      join(dir, 'fleet.yaml'),
      [
        'nodes:',
        '  - name: gpu-a',
        '    host: 127.0.0.1',
        `    port: ${new URL(node.url).port}`,
        '    file: Svcfile',
        '',
      ].join('\n'),
    );
    const started = await runSvc(['fleet', 'start', 'gpu-a', '-f', join(dir, 'fleet.yaml')]);
    expect(started.stdout).toContain('gpu-a  running');
    expect((await node.call('GET', '/v1/status')).json['engine']).toEqual({
      port,
      path: '/api/v1',
      loopbackOnly: true,
      requiresKey: false,
    });
    const log = await readFile(join(configDir, 'daemon', 'engine.log'), 'utf8');
    expect(invocationOf('llamacpp', startedWith(log))).toEqual(invocationOf('llamacpp', serveArgv));
    expect((await node.call('POST', '/v1/stop')).status).toBe(200);

    // serve --api runs the same command and reports the same engine path.
    const serve = startProcess(SVC, ['serve', dir, '--api', '--api-addr', '127.0.0.1:0'], {
      env: { ...process.env, PATH, SVC_CONFIG_DIR: join(dir, 'serve') },
    });
    const [, api = ''] = await serve.waitFor(/API listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const status = (await (await fetch(`${api}/v1/status`)).json()) as Record<string, unknown>;
    expect(status['engine']).toMatchObject({ port, path: '/api/v1' });
    await serve.waitFor(/fake-engine argv/);
    expect(startedWith(serve.stdout())).toEqual(serveArgv);
    await fetch(`${api}/v1/stop`, { method: 'POST' });
    expect(await serve.exited()).toBe(0);
  });
});
