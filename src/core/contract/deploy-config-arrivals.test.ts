/**
 * A deploy config arrives four ways: a start's body, a deploy-config push, a fleet file (a remote
 * node's `instance-type`) and a remote deploy. Each field's shape is one rule, checked the same
 * way on every one of them (spec §2.7).
 */
import { describe, expect, it } from 'vitest';

import { buildControlApi, type ControlHandlers } from '../control-api/app.ts';
import { parseFleet } from '../fleet/file/fleet-file.ts';
import { createLogger } from '../logger.ts';
import { deployBody } from '../remote/deploy-body.ts';

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

describe('enginePath (docs/design.md D23 extension)', () => {
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
            error: 'enginePath must be a path starting with /, such as /api/v1',
          },
        ],
      );
    },
  );
});

/** spec §2.7: a family and a size separated by a dot; empty is the control plane's default. */
const INSTANCE_TYPES = [
  ['g6e.xlarge', true],
  ['p4d.24xlarge', true],
  ['m7i-flex.large', true],
  ['', true],
  ['bogus', false],
  ['xlarge', false],
  ['G6E.XLARGE', false],
  ['g6e.xlarge.extra', false],
  ['g6e.', false],
  [' g6e.xlarge', false],
] as const;

/** Whether each way a deploy config arrives takes `instanceType`. */
async function accepted(instanceType: string): Promise<Record<string, boolean>> {
  const api = control();
  const body = { runner: 'vllm' as const, modelId: 'o/m', instanceType };
  const fleet = parseFleet(
    `apiKeyEnv: K\nnodes:\n  - {name: cloud, kind: remote, instance-type: ${JSON.stringify(instanceType)}}\n`,
    'fleet.yaml',
    { env: { K: 'k' }, dotenv: {} },
  );
  const deploys = (from: 'fleet file' | 'config'): boolean => {
    try {
      deployBody(
        'cloud',
        from === 'config' ? body : { runner: 'vllm' },
        from === 'config' ? undefined : instanceType,
      );
      return true;
    } catch {
      return false;
    }
  };
  return {
    start: (await api.call('/v1/start', body))[0] === 200,
    push: (await api.call('/v1/deploy-config', body))[0] === 200,
    'fleet file': fleet.ok,
    'remote deploy (fleet file)': deploys('fleet file'),
    'remote deploy (config)': deploys('config'),
  };
}

describe('instanceType: one rule wherever a deploy config arrives (spec §2.7)', () => {
  it.each(INSTANCE_TYPES)('%j: taken everywhere or refused everywhere', async (value, valid) => {
    expect(await accepted(value)).toEqual({
      start: valid,
      push: valid,
      'fleet file': valid,
      'remote deploy (fleet file)': valid,
      'remote deploy (config)': valid,
    });
  });

  it.each(HTTP_WAYS)('%s says what an instance type is', async (url) => {
    expect(await control().call(url, { runner: 'vllm', instanceType: 'bogus' })).toEqual([
      400,
      {
        error: 'instanceType must be a family and a size separated by a dot, such as g6e.xlarge',
      },
    ]);
  });
});
