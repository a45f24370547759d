/**
 * spec §1.6: a refused start or push is a warn, with its reason, however it was refused: by the
 * schema, by the handler (no model, a key for vLLM, nothing to serve, a binary this host lacks) or
 * because an engine already runs. An engine that failed to start from a valid config is an error,
 * logged where it failed (the supervisor), not again here. No body value is ever logged.
 */
import { describe, expect, it } from 'vitest';

import { SvcError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { buildControlApi, type ControlHandlers } from './app.ts';

function app(fails?: SvcError): {
  send: (method: 'POST' | 'PUT', url: string, body?: unknown) => Promise<number>;
  lines: string[];
} {
  const lines: string[] = [];
  const reply = () =>
    fails === undefined
      ? Promise.resolve({ state: 'running' as const, version: 'dev' })
      : Promise.reject(fails);
  const handlers: ControlHandlers = {
    status: () => ({ state: 'idle', version: 'dev' }),
    metrics: () => ({ state: 'idle' }),
    lifetime: () => ({ starts: 0, crashes: 0 }),
    start: reply,
    stop: reply,
    logs: () => Promise.resolve({ content: '', nextOffset: 0, size: 0 }),
    deployConfig: () =>
      fails === undefined ? Promise.resolve({ message: 'stored' }) : Promise.reject(fails),
  };
  const api = buildControlApi({
    logger: createLogger('debug', { write: (line) => lines.push(line.replace(/^\S+ /, '')) }),
    handlers,
  });
  return {
    lines,
    async send(method, url, body) {
      const answer = await api.inject({
        method,
        url,
        ...(body === undefined ? {} : { payload: body as object }),
      });
      return answer.statusCode;
    },
  };
}

const KEY = 'engine-key-never-logged';

describe('refused starts and pushes are logged at warn, with the reason (spec §1.6)', () => {
  it.each([
    [
      'a schema rejection',
      undefined,
      { runner: 'ollama', engineApiKey: KEY },
      'runner must be one of llamacpp, vllm, mtplx',
    ],
    [
      'a pattern rejection',
      undefined,
      { runner: 'vllm', instanceType: 'bogus', engineApiKey: KEY },
      'instanceType must be a family and a size separated by a dot, such as g6e.xlarge',
    ],
    [
      'a config the handler refuses',
      new SvcError('ERR_DEPLOY_CONFIG', 'modelId: the deploy config names no model: set modelId'),
      { runner: 'vllm', engineApiKey: KEY },
      'modelId: the deploy config names no model: set modelId',
    ],
    [
      'nothing to serve',
      new SvcError('ERR_NOTHING_TO_SERVE', 'nothing to serve'),
      undefined,
      'nothing to serve',
    ],
    [
      'what this host lacks',
      new SvcError('ERR_ENGINE_UNAVAILABLE', 'the model file /m.gguf does not exist'),
      undefined,
      'the model file /m.gguf does not exist',
    ],
    [
      'an engine already running',
      new SvcError('ERR_ENGINE_RUNNING', 'an engine is already running'),
      undefined,
      'an engine is already running',
    ],
  ])('start: %s', async (_name, fails, body, reason) => {
    const { send, lines } = app(fails);
    expect(await send('POST', '/v1/start', body)).toBeGreaterThanOrEqual(400);
    expect(lines.filter((line) => !line.startsWith('WARN  api request'))).toEqual([
      `WARN  start refused reason=${JSON.stringify(reason)}\n`,
    ]);
    expect(lines.join('')).not.toContain(KEY);
  });

  it('push: a schema rejection and a handler rejection log the same way', async () => {
    for (const [fails, body] of [
      [undefined, { runner: 'vllm', parallel: '2' }],
      [new SvcError('ERR_DEPLOY_CONFIG', 'parallel must be an integer'), { runner: 'vllm' }],
    ] as const) {
      const { send, lines } = app(fails);
      expect(await send('PUT', '/v1/deploy-config', body)).toBe(400);
      expect(lines.filter((line) => !line.startsWith('WARN  api request'))).toEqual([
        'WARN  deploy config refused reason="parallel must be an integer"\n',
      ]);
    }
  });

  it('an engine that failed to start from a valid config adds no warn: its error is logged where it failed', async () => {
    const { send, lines } = app(
      new SvcError('ERR_ENGINE_START_FAILED', 'the engine exited during start-up (exit code 3)'),
    );
    expect(await send('POST', '/v1/start', { runner: 'vllm', modelId: 'o/m' })).toBe(400);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^WARN {2}api request method=POST path=\/v1\/start status=400 /);
  });

  it('a started engine logs no refusal', async () => {
    const { send, lines } = app();
    expect(await send('POST', '/v1/start', { runner: 'vllm', modelId: 'o/m' })).toBe(200);
    expect(lines.join('')).not.toContain('refused');
  });
});
