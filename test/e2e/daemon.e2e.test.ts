/**
 * `svc daemon` against the real llama-server on the generated model: push, start, a completion
 * on the engine's own port, status, logs, stop, a body-less start after a daemon restart, the
 * engine key gate, auth, and the refusals of spec §3 and §7. Ends by scanning everything the
 * daemons printed and replied for the API token and the engine key.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { chat, type ChatOptions } from '../support/http/chat.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import {
  alive,
  freePort,
  recordOutput,
  startTestDaemon,
  type TestDaemon,
  transcript,
  waitForStatus,
} from '../support/svc/daemon.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const TOKEN = 'test-api-token-5b1f0c9e';
const KEY = 'test-engine-key-9d8c7b6a';

let model: string;
beforeAll(async () => {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  model = await writeTinyModel(
    join(await mkdtemp(join(tmpdir(), 'svc-daemon-model-')), 'tiny.gguf'),
  );
});

function daemon(configDir: string): Promise<TestDaemon> {
  return startTestDaemon({ configDir, token: TOKEN });
}

function llamaConfig(port: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    runner: 'llamacpp',
    modelId: model,
    servedModelName: 'tiny',
    contextSize: 512,
    serveArgs: ['--host', '127.0.0.1', '--port', String(port), '--threads', '1'],
    ...extra,
  };
}

/** The engine's own address, where a daemon's node answers (gated by its engine key). */
const engineAt = (port: number): string => `http://127.0.0.1:${port}`;

const bearer = (key: string): ChatOptions => ({ headers: { authorization: `Bearer ${key}` } });

describe('svc daemon with the real llama-server', () => {
  it('pushes, starts, serves a completion, reports status and logs, stops, and restarts from the stored config', async () => {
    const configDir = await tempDir();
    const port = await freePort();
    const first = await daemon(configDir);

    expect((await first.call('GET', '/v1/status')).json).toEqual({ state: 'idle', version: 'dev' });

    const pushed = await first.call('PUT', '/v1/deploy-config', { body: llamaConfig(port) });
    expect(pushed.status).toBe(200);
    expect(pushed.json['message']).toContain('next start');
    const stored = join(configDir, 'daemon', 'deploy-config.json');
    expect(JSON.parse(await readFile(stored, 'utf8'))).toEqual(llamaConfig(port));
    expect((await stat(stored)).mode & 0o777).toBe(0o600);
    expect((await stat(join(configDir, 'daemon'))).mode & 0o777).toBe(0o700);

    const started = await first.call('POST', '/v1/start', { body: llamaConfig(port) });
    expect(started.status).toBe(200);
    expect(started.json).toMatchObject({
      state: 'running',
      runner: 'llamacpp',
      model,
      servedName: 'tiny',
      uptimeSeconds: 0,
      logPath: join(configDir, 'daemon', 'engine.log'),
      engine: { port, loopbackOnly: true, requiresKey: false },
      version: 'dev',
    });
    expect(started.json['engine']).not.toHaveProperty('host');
    expect(Date.parse(String(started.json['lastActiveAt']))).toBeGreaterThan(Date.now() - 60_000);

    await waitForStatus(`http://127.0.0.1:${port}/health`, 200);
    const reply = await chat(engineAt(port));
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { object: string }).object).toBe('chat.completion');

    // Logs: the tail, then nothing new from nextOffset, then what a request appended.
    const tail = await first.call('GET', '/v1/logs?limit=4096');
    expect(tail.status).toBe(200);
    expect(tail.json['content']).toContain('listening on');
    expect(tail.json['path']).toBe(join(configDir, 'daemon', 'engine.log'));
    const next = Number(tail.json['nextOffset']);
    expect(next).toBe(tail.json['size']);
    await chat(engineAt(port));
    // The engine writes its log on a thread of its own, possibly just after it answered.
    const appended = await eventually(
      () => first.call('GET', `/v1/logs?offset=${next}`),
      (reply) => String(reply.json['content']).length > 0,
      `the engine log to grow past offset ${next}`,
    );
    expect(Number(appended.json['nextOffset'])).toBeGreaterThan(next);
    const stale = await first.call('GET', '/v1/logs?offset=999999999');
    expect(stale.json).toMatchObject({ staleOffset: true });
    expect((await first.call('GET', '/v1/logs?offset=-1')).status).toBe(400);
    expect((await first.call('GET', '/v1/logs?limit=0')).status).toBe(400);
    expect((await first.call('GET', '/v1/logs?limit=1.5')).json).toEqual({
      error: 'limit must be a whole number',
    });

    // A stop leaves lastActiveAt alone (spec §3). It may have moved past the start already: the
    // sampler's first reading can see the first chat in flight, which is activity.
    const before = (await first.call('GET', '/v1/status')).json['lastActiveAt'];
    const stopped = await first.call('POST', '/v1/stop');
    expect(stopped.json).toMatchObject({ state: 'stopped', uptimeSeconds: 0 });
    expect(stopped.json).not.toHaveProperty('engine');
    expect(stopped.json['lastActiveAt']).toBe(before);
    expect(Date.parse(String(before))).toBeGreaterThanOrEqual(
      Date.parse(String(started.json['lastActiveAt'])),
    );
    expect((await first.call('POST', '/v1/stop')).status).toBe(200);
    expect(await first.terminate()).toBe(0);

    // A new daemon over the same directory serves the stored config on a body-less start.
    const second = await daemon(configDir);
    const again = await second.call('POST', '/v1/start');
    expect(again.json).toMatchObject({ state: 'running', model, engine: { port } });
    await waitForStatus(`http://127.0.0.1:${port}/health`, 200);
    expect((await chat(engineAt(port))).status).toBe(200);
    expect(await second.terminate()).toBe(0);
    // SIGTERM stopped the engine too.
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });

  it('gates the engine with the key as a file, never on its command line (spec §2.3, §5 rule 5)', async () => {
    const configDir = await tempDir();
    const port = await freePort();
    const node = await daemon(configDir);
    const started = await node.call('POST', '/v1/start', {
      body: { ...llamaConfig(port), engineApiKey: KEY },
    });
    expect(started.json).toMatchObject({ state: 'running', engine: { port, requiresKey: true } });
    await waitForStatus(`http://127.0.0.1:${port}/health`, 200);

    expect((await chat(engineAt(port))).status).toBe(401);
    expect((await chat(engineAt(port), {}, bearer('wrong'))).status).toBe(401);
    expect((await chat(engineAt(port), {}, bearer(KEY))).status).toBe(200);

    const logs = await node.call('GET', '/v1/logs?limit=65536');
    const pid = Number(
      /pid=(\d+)/.exec(node.process.output().split('engine started').pop() ?? '')?.[1],
    );
    expect(pid).toBeGreaterThan(0);
    const commandLine = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    expect(commandLine).toContain('--api-key-file');
    expect(commandLine.join(' ')).not.toContain(KEY);
    expect(logs.text).not.toContain(KEY);
    const keyFile = join(configDir, 'daemon', 'engine-api-key');
    expect(await readFile(keyFile, 'utf8')).toBe(`${KEY}\n`);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);

    // A body-less start reuses the stored key.
    await node.call('POST', '/v1/stop');
    expect((await node.call('POST', '/v1/start')).json).toMatchObject({
      engine: { requiresKey: true },
    });
    await waitForStatus(`http://127.0.0.1:${port}/health`, 200);
    expect((await chat(engineAt(port))).status).toBe(401);

    // A start carrying a config and no key opens the engine and clears the stored key.
    await node.call('POST', '/v1/stop');
    expect((await node.call('POST', '/v1/start', { body: llamaConfig(port) })).json).toMatchObject({
      engine: { requiresKey: false },
    });
    await waitForStatus(`http://127.0.0.1:${port}/health`, 200);
    expect((await chat(engineAt(port))).status).toBe(200);
    await expect(stat(keyFile)).rejects.toThrow();
    expect(await node.terminate()).toBe(0);
  });

  it('answers 409 to a start while running and stores nothing the refused start carried', async () => {
    const configDir = await tempDir();
    const port = await freePort();
    const node = await daemon(configDir);
    await node.call('POST', '/v1/start', { body: llamaConfig(port) });
    const stored = await readFile(join(configDir, 'daemon', 'deploy-config.json'), 'utf8');

    const refused = await node.call('POST', '/v1/start', {
      body: { ...llamaConfig(port), servedModelName: 'other', engineApiKey: KEY },
    });
    expect(refused.status).toBe(409);
    expect(refused.json['error']).toContain('already running');
    expect(await readFile(join(configDir, 'daemon', 'deploy-config.json'), 'utf8')).toBe(stored);
    await expect(stat(join(configDir, 'daemon', 'engine-api-key'))).rejects.toThrow();
    expect((await node.call('GET', '/v1/status')).json).toMatchObject({
      state: 'running',
      servedName: 'tiny',
    });

    // A push while running leaves the engine alone and says when it applies.
    const pushed = await node.call('PUT', '/v1/deploy-config', {
      body: { ...llamaConfig(port), servedModelName: 'next' },
    });
    expect(pushed.json['message']).toContain('running engine is untouched');
    expect((await node.call('GET', '/v1/status')).json).toMatchObject({
      state: 'running',
      servedName: 'tiny',
    });
    expect(await node.terminate()).toBe(0);
  });

  it('refuses a bad start with 400 and keeps the stored config (spec §3, §7)', async () => {
    const configDir = await tempDir();
    const node = await daemon(configDir);
    expect((await node.call('POST', '/v1/start')).json).toEqual({
      error:
        'nothing to serve: the start carried no deploy config and none is stored (PUT /v1/deploy-config, or start with a body)',
    });
    const port = await freePort();
    await node.call('PUT', '/v1/deploy-config', { body: llamaConfig(port) });
    const stored = await readFile(join(configDir, 'daemon', 'deploy-config.json'), 'utf8');

    const cases: [unknown, string][] = [
      [{ runner: 'omlx', modelId: 'x' }, 'runner must be one of llamacpp, vllm, mtplx'],
      [{ modelId: 'x' }, 'runner is required'],
      [{ runner: 'llamacpp' }, 'modelId'],
      [{ runner: 'llamacpp', modelId: 'x', contextSize: '4096' }, 'contextSize must be an integer'],
      [{ runner: 'llamacpp', modelId: 'x', parallel: -1 }, 'parallel'],
      [
        { runner: 'llamacpp', modelId: 'x', companions: { draft: '../d.gguf' } },
        'companions.draft',
      ],
      [{ runner: 'llamacpp', modelId: 'x', surprise: true }, 'surprise is not a field'],
      [[1, 2], 'JSON object'],
      [
        {
          runner: 'llamacpp',
          modelId: '/nowhere/missing.gguf',
          serveArgs: ['--port', String(port)],
        },
        'the model file /nowhere/missing.gguf does not exist',
      ],
    ];
    for (const [body, message] of cases) {
      const reply = await node.call('POST', '/v1/start', { body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(String(reply.json['error']), JSON.stringify(body)).toContain(message);
    }
    const leaky = await node.call('POST', '/v1/start', {
      raw: `{"runner":"llamacpp","engineApiKey": ${KEY}}`,
    });
    expect(leaky.status).toBe(400);
    expect(leaky.text).not.toContain(KEY.slice(0, 10));
    const malformed = await node.call('POST', '/v1/start', { raw: '{"runner": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.json['error']).toMatch(/^malformed JSON body/);
    const huge = await node.call('PUT', '/v1/deploy-config', {
      raw: JSON.stringify({ runner: 'llamacpp', modelId: 'x'.repeat(2_000_000) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.json['error']).toContain('larger than');

    expect(await readFile(join(configDir, 'daemon', 'deploy-config.json'), 'utf8')).toBe(stored);
    expect((await node.call('GET', '/v1/status')).json['state']).not.toBe('running');
    expect(await node.terminate()).toBe(0);
  });

  it('requires the bearer token on every endpoint, and a wrong one changes nothing', async () => {
    const configDir = await tempDir();
    const node = await daemon(configDir);
    const port = await freePort();
    for (const [method, path] of [
      ['GET', '/v1/status'],
      ['POST', '/v1/start'],
      ['POST', '/v1/stop'],
      ['GET', '/v1/metrics'],
      ['GET', '/v1/logs'],
      ['PUT', '/v1/deploy-config'],
      ['GET', '/v1/unknown'],
    ] as const) {
      for (const token of [null, 'wrong-token']) {
        const body = method === 'GET' ? {} : { body: llamaConfig(port) };
        const reply = await node.call(method, path, { token, ...body });
        expect(reply, `${method} ${path} ${String(token)}`).toMatchObject({
          status: 401,
          json: { error: 'missing or invalid bearer token' },
        });
      }
    }
    expect((await node.call('GET', '/v1/status')).json['state']).toBe('idle');
    await expect(stat(join(configDir, 'daemon', 'deploy-config.json'))).rejects.toThrow();
    expect(node.process.output()).not.toContain('wrong-token');
    expect(await node.terminate()).toBe(0);
  });

  it('answers unknown paths with 404 and wrong methods with 405, as {"error"}', async () => {
    const node = await daemon(await tempDir());
    const missing = await node.call('GET', '/v2/status');
    expect(missing.status).toBe(404);
    expect(missing.json['error']).toContain('GET /v1/status');
    const wrong = await node.call('DELETE', '/v1/status');
    expect(wrong).toMatchObject({
      status: 405,
      json: { error: 'DELETE is not allowed on /v1/status; use GET' },
    });
    expect(await node.terminate()).toBe(0);
  });

  it('logs one line per request at the level its status calls for, and no header or body', async () => {
    const node = await daemon(await tempDir());
    await node.call('GET', '/v1/status?x=1');
    await node.call('GET', '/v1/status', { token: 'nope' });
    await node.call('PUT', '/v1/deploy-config', {
      body: { runner: 'llamacpp', modelId: 'secret-model-arg' },
    });
    expect(await node.terminate()).toBe(0);
    const output = node.process.stderr();
    expect(output).toMatch(
      /DEBUG api request method=GET path="\/v1\/status\?x=1" status=200 duration=[\d.]+ms bytes=\d+ remote=127\.0\.0\.1/,
    );
    expect(output).toMatch(/WARN {2}api request method=GET path=\/v1\/status status=401/);
    expect(output).not.toContain('secret-model-arg');
    expect(output).not.toContain('authorization');
  });

  it('refuses what it must at startup (spec §7)', async () => {
    const positional = await runSvc(['daemon', 'Svcfile']);
    expect(positional.status).toBe(2);
    expect(positional.stderr).toContain('svc daemon takes no Svcfile (got "Svcfile")');

    const open = await runSvc(['daemon', '--api-addr', '0.0.0.0:0'], {
      env: { SVC_API_TOKEN: '' },
    });
    expect(open.status).toBe(2);
    expect(open.stderr).toContain(
      '--api-token-file <path>, set SVC_API_TOKEN, or pass --api-token <value>',
    );

    const two = await runSvc(['daemon', '--api-addr', '127.0.0.1:0', '--api-token', TOKEN], {
      env: { SVC_API_TOKEN: 'another' },
    });
    expect(two.status).toBe(2);
    expect(two.stderr).toBe(
      'svc: SVC_API_TOKEN and --api-token both give an API token: pass exactly one\n',
    );

    const both = await runSvc(['daemon', '--loopback', '--api-addr', '127.0.0.1:0']);
    expect(both.stderr).toBe('svc: --loopback and --api-addr both given: pass one\n');
    transcript.push(positional.stderr, open.stderr, two.stderr, both.stderr);
  });

  it('exits 0 on SIGINT as on SIGTERM, stopping its engine', async () => {
    const node = await daemon(await tempDir());
    const port = await freePort();
    await node.call('POST', '/v1/start', { body: llamaConfig(port) });
    await waitForStatus(`http://127.0.0.1:${port}/health`, 200);
    const pid = Number(/engine started .*pid=(\d+)/.exec(node.process.output())?.[1]);
    process.kill(node.process.pid, 'SIGINT');
    expect(await node.process.exited()).toBe(0);
    recordOutput(node);
    expect(alive(pid)).toBe(false);
  });

  it('never printed or replied the API token or the engine key', () => {
    const everything = transcript.join('\n');
    expect(everything.length).toBeGreaterThan(1000);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(KEY);
  });
});
