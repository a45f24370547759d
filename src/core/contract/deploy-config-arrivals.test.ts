/**
 * A deploy config arrives four ways: a start's body, a deploy-config push, a fleet file (a remote
 * node's `instance-type`) and a remote deploy. Each field's shape is one rule, checked the same
 * way on every one of them (spec §2.7).
 */
import { describe, expect, it } from 'vitest';

import { buildControlApi, type ControlHandlers } from '../control-api/app.ts';
import { createLogger } from '../logger.ts';

function control(): { call: (url: string, body: unknown) => Promise<[number, unknown]> } {
  const reply = () => Promise.resolve({ state: 'running' as const, version: 'dev' });
  const handlers: ControlHandlers = {
    status: () => ({ state: 'idle', version: 'dev' }),
    metrics: () => ({ state: 'idle' }),
    lifetime: () => ({ starts: 0, crashes: 0 }),
    start: reply,
    stop: reply,
    logs: () => Promise.resolve({ content: '', nextOffset: 0, size: 0 }),
    deployConfig: () => Promise.resolve({ message: 'stored' }),
  };
  const api = buildControlApi({
    logger: createLogger('error', { write: () => undefined }),
    handlers,
  });
  return {
    async call(url, body) {
      const answer = await api.inject({
        method: url === '/v1/start' ? 'POST' : 'PUT',
        url,
        payload: body as object,
      });
      return [answer.statusCode, answer.json()];
    },
  };
}

const HTTP_WAYS = ['/v1/start', '/v1/deploy-config'] as const;

describe('enginePath (GUIDE D23 extension)', () => {
  it.each(HTTP_WAYS)('%s takes a path starting with /', async (url) => {
    const [status] = await control().call(url, {
      runner: 'llamacpp',
      modelId: 'o/m',
      enginePath: '/api/v1',
    });
    expect(status).toBe(200);
  });

  it.each(HTTP_WAYS.flatMap((url) => ['api/v1', '/a b', '/v1?x=1', ''].map((path) => [url, path])))(
    '%s refuses %j, saying what it must be',
    async (url, enginePath) => {
      expect(await control().call(url, { runner: 'llamacpp', modelId: 'o/m', enginePath })).toEqual(
        [
          400,
          {
            error: `enginePath ${JSON.stringify(enginePath)} is not a path starting with /, such as /api/v1`,
          },
        ],
      );
    },
  );
});
