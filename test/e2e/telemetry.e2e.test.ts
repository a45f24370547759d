/**
 * Telemetry end to end (spec §2.1, §2.4, §3): the real llama-server's counters move with a
 * completion and move lastActiveAt; status and metrics agree; readiness flips while a (fake,
 * slow-loading) engine loads; GPU readings come from an nvidia-smi on PATH, and a failing one is
 * an error entry.
 */
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { REPO_ROOT } from '../support/prerequisites/engines.ts';
import { FAKE_BIN_DIR, freePort, startTestDaemon, waitForStatus } from '../support/svc/daemon.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');
const FAST = { SVC_SAMPLE_INTERVAL_SECONDS: '0.3' };

let model: string;
beforeAll(async () => {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  model = await writeTinyModel(join(await mkdtemp(join(tmpdir(), 'svc-telemetry-')), 'tiny.gguf'));
});

describe('telemetry with the real llama-server', () => {
  it('reports real counters; a completion moves them and lastActiveAt; status and metrics agree', async () => {
    const node = await startTestDaemon({ configDir: await tempDir(), env: FAST });
    expect((await node.call('GET', '/v1/metrics')).json).toEqual({ state: 'idle' });

    const port = await freePort();
    await node.call('POST', '/v1/start', {
      body: {
        runner: 'llamacpp',
        modelId: model,
        servedModelName: 'tiny',
        serveArgs: ['--host', '127.0.0.1', '--port', String(port)],
      },
    });
    await waitForStatus(`http://127.0.0.1:${port}/health`, 200);
    const before = await eventually(
      async () => (await node.call('GET', '/v1/metrics')).json,
      (stats) =>
        stats['ready'] === 'ready' &&
        Array.isArray(stats['history']) &&
        (stats['history'] as unknown[]).length >= 2,
      'the engine ready with two history samples',
    );
    expect(before).toMatchObject({
      state: 'running',
      runner: 'llamacpp',
      modelId: model,
      servedName: 'tiny',
      ready: 'ready',
      tokens: { running: 0, counter: 0, promptTokens: 0, generationTokens: 0 },
      cpu: { utilization: expect.any(Number) as number },
      memory: { total: expect.any(Number) as number, used: expect.any(Number) as number },
    });
    expect(before).not.toHaveProperty('gpus');
    expect(before).not.toHaveProperty('retainUntil');
    const history = before['history'] as { t: number; c?: number; m?: number }[];
    // The run's first tick follows its first CPU reading by milliseconds, maybe too soon for a
    // busy figure; a later tick, an interval after the one before, has all three.
    expect(history.at(-1)).toEqual({
      t: expect.any(Number) as number,
      c: expect.any(Number) as number,
      m: expect.any(Number) as number,
    });
    expect(history.map((sample) => sample.t)).toEqual(
      [...history.map((sample) => sample.t)].sort((a, b) => a - b),
    );

    const reply = await fetch(`http://127.0.0.1:${port}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hello world', max_tokens: 6 }),
    });
    expect(reply.status).toBe(200);
    await reply.text();

    const after = await eventually(
      async () => (await node.call('GET', '/v1/metrics')).json,
      (stats) => (stats['tokens'] as { counter: number }).counter > 0,
      'the token counter to move',
    );
    const tokens = after['tokens'] as {
      counter: number;
      promptTokens: number;
      generationTokens: number;
    };
    expect(tokens.promptTokens).toBeGreaterThan(0);
    expect(tokens.generationTokens).toBe(6);
    expect(tokens.counter).toBeGreaterThanOrEqual(tokens.promptTokens + tokens.generationTokens);
    expect(Date.parse(String(after['lastActiveAt']))).toBeGreaterThan(
      Date.parse(String(before['lastActiveAt'])),
    );

    const status = (await node.call('GET', '/v1/status')).json;
    const stats = (await node.call('GET', '/v1/metrics')).json;
    expect(status['lastActiveAt']).toBe(stats['lastActiveAt']);
    expect(status['servedName']).toBe(stats['servedName']);
    expect(status['ready']).toBe('ready');

    // Stopped: no tokens, no live readings, but lastActiveAt and history survive.
    await node.call('POST', '/v1/stop');
    const stopped = (await node.call('GET', '/v1/metrics')).json;
    expect(stopped).toMatchObject({ state: 'stopped', lastActiveAt: after['lastActiveAt'] });
    expect(stopped['history']).toEqual(expect.any(Array));
    for (const live of ['tokens', 'gpus', 'cpu', 'memory', 'ready', 'errors']) {
      expect(stopped).not.toHaveProperty(live);
    }
    expect((await node.call('GET', '/v1/status')).json).not.toHaveProperty('ready');
    expect(await node.terminate()).toBe(0);
  });
});

describe('telemetry with fake engines and GPU tools', () => {
  it('reports not-ready while the engine loads, then ready', async () => {
    const node = await startTestDaemon({
      configDir: await tempDir(),
      path: [FAKE_BIN_DIR],
      env: { ...FAST, FAKE_ENGINE: 'slow-health:2500' },
    });
    const port = await freePort();
    await node.call('POST', '/v1/start', {
      body: { runner: 'llamacpp', modelId: 'org/m', serveArgs: ['--port', String(port)] },
    });
    const loading = await eventually(
      async () => (await node.call('GET', '/v1/status')).json,
      (status) => status['ready'] !== undefined,
      'a readiness reading',
    );
    expect(loading['ready']).toBe('not-ready');
    expect(loading['state']).toBe('running');
    const ready = await eventually(
      async () => (await node.call('GET', '/v1/status')).json,
      (status) => status['ready'] === 'ready',
      'the engine ready',
    );
    expect(ready['ready']).toBe('ready');
    expect(await node.terminate()).toBe(0);
  });

  it('reads GPUs from nvidia-smi on PATH, [N/A] figures absent, into gpus and history', async () => {
    const node = await startTestDaemon({
      configDir: await tempDir(),
      path: [join(FIXTURES, 'gpu-ok'), FAKE_BIN_DIR],
      env: FAST,
    });
    await node.call('POST', '/v1/start', {
      body: { runner: 'mtplx', modelId: 'org/m', serveArgs: ['--port', String(await freePort())] },
    });
    const stats = await eventually(
      async () => (await node.call('GET', '/v1/metrics')).json,
      (value) => value['gpus'] !== undefined && value['history'] !== undefined,
      'GPU readings and history',
    );
    expect(stats['gpus']).toEqual([
      {
        index: 0,
        name: 'NVIDIA H100 80GB HBM3',
        utilization: 37,
        memoryUsed: 40960 * 1024 * 1024,
        memoryTotal: 81559 * 1024 * 1024,
        temperature: 52,
      },
      { index: 1, name: 'NVIDIA GB10', temperature: 41 },
    ]);
    const [sample] = stats['history'] as { g: unknown[] }[];
    expect(sample?.g).toEqual([
      { i: 0, u: 37, m: 50.2 },
      { i: 1, u: 0 },
    ]);
    // mtplx has no Prometheus endpoint: no tokens, and that is not an error.
    expect(stats).not.toHaveProperty('tokens');
    expect(stats).not.toHaveProperty('errors');
    expect(await node.terminate()).toBe(0);
  });

  it('reports a failing GPU tool in errors and omits gpus', async () => {
    const node = await startTestDaemon({
      configDir: await tempDir(),
      path: [join(FIXTURES, 'gpu-failing'), FAKE_BIN_DIR],
      env: FAST,
    });
    await node.call('POST', '/v1/start', {
      body: { runner: 'mtplx', modelId: 'org/m', serveArgs: ['--port', String(await freePort())] },
    });
    const stats = await eventually(
      async () => (await node.call('GET', '/v1/metrics')).json,
      (value) => value['errors'] !== undefined,
      'an error entry',
    );
    expect(stats).not.toHaveProperty('gpus');
    expect(stats['errors']).toEqual([
      expect.stringMatching(/^gpu: nvidia-smi failed: NVIDIA-SMI has failed/),
    ]);
    expect(await node.terminate()).toBe(0);
  });
});

/** Samples of a Prometheus text page; every line must be a comment or a well-formed sample. */
function promSamples(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) {
      continue;
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (-?[0-9.e+-]+|NaN|[+-]Inf)$/.exec(
      line,
    );
    expect(match, `not a Prometheus sample line: ${line}`).not.toBeNull();
    samples.set(match?.[1] ?? '', Number(match?.[2]));
  }
  return samples;
}

describe('GET /metrics with the real llama-server', () => {
  it('is Prometheus text behind the token whose counters move with real traffic, and reading it is not activity', async () => {
    const token = 'metrics-test-token';
    const node = await startTestDaemon({ configDir: await tempDir(), token, env: FAST });
    expect((await node.call('GET', '/metrics', { token: null })).status).toBe(401);
    const idle = promSamples((await node.call('GET', '/metrics')).text);
    expect(idle.get('svc_engine_state{state="idle"}')).toBe(1);
    expect(idle.get('svc_engine_starts_total')).toBe(0);

    const port = await freePort();
    await node.call('POST', '/v1/start', {
      body: {
        runner: 'llamacpp',
        modelId: model,
        serveArgs: ['--host', '127.0.0.1', '--port', String(port)],
      },
    });
    await waitForStatus(`http://127.0.0.1:${port}/health`, 200);
    const before = await eventually(
      async () => promSamples((await node.call('GET', '/metrics')).text),
      (samples) =>
        samples.get('svc_engine_ready') === 1 &&
        samples.has('svc_engine_generation_tokens_total') &&
        samples.has('svc_host_memory_total_bytes'),
      'the engine ready, its token counters and a host reading',
    );
    // llama-server keeps no count of completed requests (docs/observability.md): absent, not 0.
    expect(before.has('svc_engine_requests_total')).toBe(false);
    expect(before.get('svc_engine_state{state="running"}')).toBe(1);
    expect(before.get('svc_engine_starts_total')).toBe(1);
    expect(before.get('svc_host_memory_total_bytes')).toBeGreaterThan(0);
    const activeBefore = before.get('svc_engine_last_active_timestamp_seconds');
    // Scrapes alone never move lastActiveAt (spec §3): not the ones above, nor the reads of the
    // engine's counters in between. Bounded by the sampler having read them again (its history
    // gains a sample from a later second), not by a sleep.
    const lastSample = async (): Promise<number> => {
      const history = (await node.call('GET', '/v1/metrics')).json['history'] as { t: number }[];
      return history.at(-1)?.t ?? 0;
    };
    const sampledAt = await lastSample();
    await eventually(lastSample, (t) => t > sampledAt, 'a sampler reading from a later second');
    const scraped = promSamples((await node.call('GET', '/metrics')).text);
    expect(scraped.get('svc_engine_last_active_timestamp_seconds')).toBe(activeBefore);

    const reply = await fetch(`http://127.0.0.1:${port}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hello world', max_tokens: 5 }),
    });
    expect(reply.status).toBe(200);
    await reply.text();
    const after = promSamples((await node.call('GET', '/metrics')).text);
    expect(after.get('svc_engine_generation_tokens_total')).toBe(
      (before.get('svc_engine_generation_tokens_total') ?? 0) + 5,
    );
    expect(after.get('svc_engine_prompt_tokens_total')).toBeGreaterThan(
      before.get('svc_engine_prompt_tokens_total') ?? 0,
    );

    await node.call('POST', '/v1/stop');
    const stopped = promSamples((await node.call('GET', '/metrics')).text);
    expect(stopped.get('svc_engine_state{state="stopped"}')).toBe(1);
    expect(stopped.has('svc_engine_uptime_seconds')).toBe(false);
    expect(stopped.get('svc_engine_crashes_total')).toBe(0);
    expect(await node.terminate()).toBe(0);
  });
});
