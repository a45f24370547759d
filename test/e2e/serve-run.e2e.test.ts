/**
 * `svc serve` off a terminal (spec §1.1): the command first on stdout, then the engine's output
 * forwarded, and serve's exit status is the engine's. With `--api` (spec §1.5): start is always
 * 409, status, metrics and logs answer, and a stop ends serve.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { ENGINE_BIN_DIR } from '../support/prerequisites/engines.ts';
import { startProcess } from '../support/processes/processes.ts';
import { alive, FAKE_BIN_DIR, freePort, waitForStatus } from '../support/svc/daemon.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';

const TOKEN = 'serve-api-token-0d41';

describe('svc serve off a terminal', () => {
  it('prints the command first, forwards engine stdout and stderr, and exits with the engine status', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'Svcfile'), 'PROVIDER mtplx\nMODEL org/m\nALIAS m\n');
    const result = await runSvc(['serve', dir], {
      env: {
        PATH: `${FAKE_BIN_DIR}:${process.env['PATH'] ?? ''}`,
        FAKE_ENGINE: 'crash-after:300',
        SVC_CONFIG_DIR: join(dir, 'c'),
      },
    });
    expect(result.status).toBe(3);
    const [first, second] = result.stdout.split('\n');
    expect(first).toBe('mtplx serve --model org/m --download --model-id m');
    expect(second).toBe(
      'fake-engine argv: ["serve","--model","org/m","--download","--model-id","m"]',
    );
    expect(result.stderr).toContain('fake-engine: crashing on purpose');
    // docs/design.md D4: a plain piped serve only forwards; nothing is captured.
    await expect(readFile(join(dir, 'c', 'daemon', 'engine.log'))).rejects.toThrow();
  });

  it('fails before starting anything when the binary is missing, naming the engine', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'Svcfile'), 'PROVIDER vllm\nMODEL org/m\n');
    const result = await runSvc(['serve', dir], { env: { PATH: '/usr/bin:/bin' } });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('svc: vllm not found on PATH: install vLLM');
  });

  it('stops the engine on SIGTERM and exits 0', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'Svcfile'),
      `PROVIDER llamacpp\nMODEL org/m\nBASEURL 127.0.0.1:${await freePort()}\n`,
    );
    const serve = startProcess(SVC, ['serve', dir], {
      env: {
        ...process.env,
        PATH: `${FAKE_BIN_DIR}:${process.env['PATH'] ?? ''}`,
        SVC_CONFIG_DIR: join(dir, 'c'),
      },
    });
    await serve.waitFor(/fake-engine: listening/);
    const engine = Number(/engine started .*pid=(\d+)/.exec(serve.output())?.[1]);
    process.kill(serve.pid, 'SIGTERM');
    expect(await serve.exited()).toBe(0);
    expect(alive(engine)).toBe(false);
  });
});

describe('svc serve --api', () => {
  it('answers status, metrics and logs from the foreground engine, refuses start with 409, and stop ends serve', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const port = await freePort();
    await writeFile(
      join(dir, 'Svcfile'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${port}\n`,
    );
    // spec §5: under serve --api, SVC_API_TOKEN may come from the .env beside the Svcfile.
    await writeFile(join(dir, '.env'), `SVC_API_TOKEN=${TOKEN}\n`);
    const serve = startProcess(SVC, ['serve', dir, '--api', '--api-addr', '127.0.0.1:0'], {
      env: {
        ...process.env,
        PATH: `${ENGINE_BIN_DIR}:${process.env['PATH'] ?? ''}`,
        SVC_CONFIG_DIR: join(dir, 'c'),
        SVC_API_TOKEN: '',
        SVC_SAMPLE_INTERVAL_SECONDS: '0.5',
      },
    });
    const [, api = ''] = await serve.waitFor(/API listening on (http:\/\/127\.0\.0\.1:\d+)/);
    await waitForStatus(`http://127.0.0.1:${port}/health`, 200);
    const call = async (method: string, path: string, token: string | null = TOKEN) => {
      const reply = await fetch(`${api}${path}`, {
        method,
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
      });
      return { status: reply.status, json: (await reply.json()) as Record<string, unknown> };
    };

    expect((await call('GET', '/v1/status', null)).status).toBe(401);
    const status = await call('GET', '/v1/status');
    expect(status.json).toMatchObject({
      state: 'running',
      runner: 'llamacpp',
      model,
      servedName: 'tiny',
      logPath: join(dir, 'c', 'daemon', 'engine.log'),
      engine: { port, loopbackOnly: true, requiresKey: false },
    });
    const started = await call('POST', '/v1/start');
    expect(started.status).toBe(409);
    expect(started.json['error']).toContain('already runs the engine');
    expect((await call('PUT', '/v1/deploy-config')).status).toBe(400);

    const metrics = await call('GET', '/v1/metrics');
    expect(metrics.json).toMatchObject({
      state: 'running',
      servedName: 'tiny',
      tokens: { counter: expect.any(Number) as number },
    });
    const logs = await call('GET', '/v1/logs');
    expect(logs.json['content']).toContain('listening on');
    // The engine's output is both captured and forwarded.
    expect(serve.output()).toContain('llama_server: model loaded');

    const stopped = await call('POST', '/v1/stop');
    expect(stopped.json['state']).toBe('stopped');
    expect(await serve.exited()).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    expect(serve.output()).not.toContain(TOKEN);
    // The command went to stdout first, with --metrics (supervised under --api).
    expect(serve.stdout().split('\n')[0]).toBe(
      `llama-server -m ${model} --alias tiny --host 127.0.0.1 --port ${port} --metrics`,
    );
  });

  it('refuses a non-loopback API without a token before starting the engine', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'Svcfile'), 'PROVIDER mtplx\nMODEL org/m\n');
    const result = await runSvc(['serve', dir, '--api', '--api-addr', '0.0.0.0:0'], {
      env: { PATH: `${FAKE_BIN_DIR}:${process.env['PATH'] ?? ''}`, SVC_CONFIG_DIR: join(dir, 'c') },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('without an API token');
    expect(result.stdout).not.toContain('fake-engine argv');
  });

  it('refuses API flags without --api', async () => {
    const result = await runSvc(['serve', '-n', '--api-addr', '127.0.0.1:0']);
    expect(result).toMatchObject({ status: 2, stderr: 'svc: --api-addr needs --api\n' });
  });
});
