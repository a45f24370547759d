/**
 * The control API's shared behaviour through Fastify's in-process inject: auth, the one error
 * shape, wrong types refused (not coerced), query parsing, the status codes of spec §7.
 */
import { describe, expect, it } from 'vitest';

import { SvcError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { buildControlApi, type ControlHandlers } from './app.ts';

function app(token?: string, overrides: Partial<ControlHandlers> = {}) {
  const lines: string[] = [];
  const seen: unknown[] = [];
  const handlers: ControlHandlers = {
    status: () => ({ state: 'idle', version: 'dev' }),
    metrics: () => ({ state: 'idle' }),
    lifetime: () => ({ starts: 0, crashes: 0 }),
    start: (body) => {
      seen.push(body);
      return Promise.resolve({ state: 'running', version: 'dev' });
    },
    stop: () => Promise.resolve({ state: 'stopped', version: 'dev' }),
    logs: (read) => {
      seen.push(read);
      return Promise.resolve({ content: '', nextOffset: 0, size: 0 });
    },
    deployConfig: (body) => {
      seen.push(body);
      return Promise.resolve({ message: 'stored' });
    },
    ...overrides,
  };
  const logger = createLogger('debug', { write: (line) => lines.push(line) });
  return {
    api: buildControlApi({ logger, handlers, ...(token === undefined ? {} : { token }) }),
    lines,
    seen,
  };
}

describe('control API', () => {
  it('answers 401 {error} without the right bearer token, and 200 with it', async () => {
    const { api, lines } = app('sekrit');
    expect((await api.inject({ method: 'GET', url: '/v1/status' })).json()).toEqual({
      error: 'missing or invalid bearer token',
    });
    const wrong = await api.inject({
      method: 'GET',
      url: '/v1/status',
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.statusCode).toBe(401);
    const right = await api.inject({
      method: 'GET',
      url: '/v1/status',
      headers: { authorization: 'Bearer sekrit' },
    });
    expect(right.statusCode).toBe(200);
    expect(lines.join('')).not.toContain('sekrit');
    expect(lines.join('')).not.toContain('nope');
  });

  it('runs without auth when no token is configured', async () => {
    expect((await app().api.inject({ method: 'GET', url: '/v1/status' })).statusCode).toBe(200);
  });

  it('treats an empty body as a body-less start and passes a JSON body through validated', async () => {
    const { api, seen } = app();
    await api.inject({ method: 'POST', url: '/v1/start' });
    await api.inject({
      method: 'POST',
      url: '/v1/start',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    await api.inject({
      method: 'POST',
      url: '/v1/start',
      payload: { runner: 'vllm', modelId: 'o/m', parallel: 2 },
    });
    expect(seen).toEqual([undefined, undefined, { runner: 'vllm', modelId: 'o/m', parallel: 2 }]);
  });

  it.each([
    [{ runner: 'vllm', parallel: '2' }, 'parallel must be an integer'],
    [{ runner: 'vllm', serveArgs: '--x' }, 'serveArgs must be an array'],
    [{ runner: 'vllm', serveArgs: ['--x', 3] }, 'serveArgs.1 must be a string'],
    [{ runner: 'ollama' }, 'runner must be one of llamacpp, vllm, mtplx'],
    [{ runner: 'vllm', engineApiKey: '' }, 'engineApiKey'],
    ['just a string', 'the request body must be a JSON object'],
  ])('refuses %j without coercing: %s', async (payload, message) => {
    const { api, seen } = app();
    const reply = await api.inject({
      method: 'PUT',
      url: '/v1/deploy-config',
      payload: JSON.stringify(payload),
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json<{ error: string }>().error).toContain(message);
    expect(seen).toEqual([]);
  });

  it('refuses a non-JSON content type with {error}', async () => {
    const reply = await app().api.inject({
      method: 'PUT',
      url: '/v1/deploy-config',
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(reply.statusCode).toBe(415);
    expect(reply.json()).toEqual({
      error: 'unsupported content type: send the body as application/json',
    });
  });

  it('parses logs offset and limit as whole numbers only', async () => {
    const { api, seen } = app();
    expect(
      (await api.inject({ method: 'GET', url: '/v1/logs?offset=10&limit=5' })).statusCode,
    ).toBe(200);
    expect((await api.inject({ method: 'GET', url: '/v1/logs' })).statusCode).toBe(200);
    expect(seen).toEqual([{ offset: 10, limit: 5 }, {}]);
    for (const [query, error] of [
      ['offset=-1', 'offset must be at least 0'],
      ['limit=0', 'limit must be at least 1'],
      ['offset=1e3', 'offset must be a whole number'],
      ['limit=', 'limit must be a whole number'],
      ['offset=1&offset=2', 'offset must be a whole number'],
    ]) {
      const reply = await api.inject({ method: 'GET', url: `/v1/logs?${query}` });
      expect(reply.json()).toEqual({ error });
    }
  });

  it.each([
    [new SvcError('ERR_ENGINE_RUNNING', 'busy'), 409, 'busy'],
    [new SvcError('ERR_NOTHING_TO_SERVE', 'nothing'), 400, 'nothing'],
    [new SvcError('ERR_ENGINE_START_FAILED', 'failed'), 400, 'failed'],
    [new SvcError('ERR_DEPLOY_CONFIG', 'bad'), 400, 'bad'],
    [new SvcError('ERR_ENGINE_STUCK', 'stuck'), 500, 'stuck'],
    [new Error('a bug with /secret/path'), 500, 'internal error; see the daemon log'],
  ])('maps %s to %i', async (error, status, message) => {
    const { api } = app(undefined, { stop: () => Promise.reject(error) });
    const reply = await api.inject({ method: 'POST', url: '/v1/stop' });
    expect(reply.statusCode).toBe(status);
    expect(reply.json()).toEqual({ error: message });
  });

  it('logs each request at the level its status calls for', async () => {
    const { api, lines } = app('t');
    await api.inject({
      method: 'GET',
      url: '/v1/status?a=b',
      headers: { authorization: 'Bearer t' },
    });
    await api.inject({ method: 'GET', url: '/v1/status' });
    const { api: failing, lines: failed } = app(undefined, {
      stop: () => Promise.reject(new Error('x')),
    });
    await failing.inject({ method: 'POST', url: '/v1/stop' });
    expect(lines[0]).toMatch(/DEBUG api request method=GET path="\/v1\/status\?a=b" status=200/);
    expect(lines[1]).toMatch(/WARN {2}api request method=GET path=\/v1\/status status=401/);
    expect(
      failed.some((line) => /ERROR api request method=POST path=\/v1\/stop status=500/.test(line)),
    ).toBe(true);
  });

  it('answers GET /metrics in the Prometheus text format from the metrics reply, behind the token', async () => {
    const { api } = app('secret', {
      metrics: () => ({ state: 'running', tokens: { requests: 7 }, cpu: { utilization: 50 } }),
      lifetime: () => ({ starts: 2, crashes: 1, lastExitCode: 3 }),
      status: () => ({ state: 'running', version: '1.2.0' }),
    });
    expect((await api.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    const headers = { authorization: 'Bearer secret' };
    const text = await api.inject({ method: 'GET', url: '/metrics', headers });
    expect(text.statusCode).toBe(200);
    expect(text.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(text.body).toContain('svc_engine_requests_total 7');
    expect(text.body).toContain('svc_host_cpu_utilization_ratio 0.5');
    expect(text.body).toContain('svc_engine_starts_total 2');
    expect(text.body).toContain('svc_engine_crashes_total 1');
    expect(text.body).toContain('svc_engine_last_exit_code 3');
    expect(text.body).toContain('svc_build_info{version="1.2.0"} 1');
    const open = await api.inject({
      method: 'GET',
      url: '/metrics',
      headers: { ...headers, accept: 'application/openmetrics-text; version=1.0.0' },
    });
    expect(open.headers['content-type']).toBe(
      'application/openmetrics-text; version=1.0.0; charset=utf-8',
    );
    expect(open.body.trimEnd().endsWith('# EOF')).toBe(true);
    const wrong = await api.inject({ method: 'POST', url: '/metrics', headers });
    expect(wrong.statusCode).toBe(405);
  });
});

describe('control API over a socket', () => {
  it('reads an oversized body to its end before the 413, so a client still writing gets it', async () => {
    const { api, seen } = app('sekrit');
    await api.listen({ host: '127.0.0.1', port: 0 });
    try {
      const address = api.server.address() as { port: number };
      const reply = await fetch(`http://127.0.0.1:${address.port}/v1/deploy-config`, {
        method: 'PUT',
        headers: { authorization: 'Bearer sekrit', 'content-type': 'application/json' },
        body: JSON.stringify({ runner: 'llamacpp', modelId: 'x'.repeat(2_000_000) }),
      });
      expect(reply.status).toBe(413);
      // Answered before the body was read, Node would close the connection under the writer.
      expect(reply.headers.get('connection')).not.toBe('close');
      expect(((await reply.json()) as { error: string }).error).toContain('larger than');
      expect(seen).toEqual([]);
    } finally {
      await api.close();
    }
  });
});
