import { describe, expect, it } from 'vitest';

import { engineEndpoint, lastFlagValue } from './engine-endpoint.ts';

describe('engineEndpoint (spec §2.2)', () => {
  it('takes the engine port from its own --port, the last one winning', () => {
    expect(
      engineEndpoint('llamacpp', ['--port', '9000', '--port', '9001'], { keyed: false }).port,
    ).toBe(9001);
    expect(engineEndpoint('llamacpp', ['--port=9002'], { keyed: false }).port).toBe(9002);
  });

  it.each([
    ['llamacpp', 8080, true],
    ['vllm', 8000, false],
    ['mtplx', 8000, true],
    ['omlx', 8000, true],
  ] as const)(
    'falls back to %s defaults: port %i, loopbackOnly %s',
    (runner, port, loopbackOnly) => {
      expect(engineEndpoint(runner, [], { keyed: false })).toEqual({
        port,
        loopbackOnly,
        requiresKey: false,
      });
    },
  );

  it.each([
    ['127.0.0.1', true],
    ['127.3.2.1', true],
    ['localhost', true],
    ['::1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.4', false],
    ['127.0.0.1,0.0.0.0', false],
  ])('--host %s → loopbackOnly %s', (host, loopbackOnly) => {
    expect(engineEndpoint('llamacpp', ['--host', host], { keyed: false }).loopbackOnly).toBe(
      loopbackOnly,
    );
  });

  it('reports requiresKey and never a host for a local engine', () => {
    const endpoint = engineEndpoint('llamacpp', [], { keyed: true });
    expect(endpoint.requiresKey).toBe(true);
    expect(endpoint).not.toHaveProperty('host');
  });

  it('reports a path only when it is not the usual /v1', () => {
    expect(engineEndpoint('llamacpp', [], { keyed: false, path: '/v1' })).not.toHaveProperty(
      'path',
    );
    expect(engineEndpoint('llamacpp', [], { keyed: false, path: '/openai/v1' }).path).toBe(
      '/openai/v1',
    );
  });

  it('reads the last value of a flag', () => {
    expect(lastFlagValue(['--host', 'a', '--x', '--host', 'b'], '--host')).toBe('b');
    expect(lastFlagValue(['--hostname', 'a'], '--host')).toBeUndefined();
  });
});
