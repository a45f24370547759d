import { describe, expect, it } from 'vitest';

import { engineOf, statsOf, statusOf } from './replies.ts';

const NOW = Date.parse('2030-01-01T00:00:00Z');

describe('statusOf', () => {
  it('maps a running environment to the spec status, without its api_key', () => {
    const status = statusOf(
      {
        state: 'running',
        healthy: true,
        base_url: 'http://1.2.3.4:8000/v1',
        api_key: 'SECRET',
        runner: 'llamacpp',
        modelId: 'org/m',
        servedName: 'm',
        lastActiveAt: '2029-12-31T23:00:00Z',
        idleSeconds: 3600,
        retainUntil: '2030-01-02T00:00:00Z',
      },
      NOW,
    );
    expect(status).toEqual({
      state: 'running',
      runner: 'llamacpp',
      model: 'org/m',
      servedName: 'm',
      lastActiveAt: '2029-12-31T23:00:00Z',
      idleSeconds: 3600,
      retainUntil: '2030-01-02T00:00:00Z',
      ready: 'ready',
      engine: { host: '1.2.3.4', port: 8000, requiresKey: true },
    });
  });

  it('keeps the control plane state word and drops a passed retainUntil', () => {
    expect(statusOf({ state: 'undeployed', retainUntil: '2029-01-01T00:00:00Z' }, NOW)).toEqual({
      state: 'undeployed',
    });
    expect(statusOf({ state: 'pending', healthy: false }, NOW)).toEqual({ state: 'pending' });
  });
});

describe('engineOf', () => {
  it.each([
    ['http://1.2.3.4:8000/v1', { host: '1.2.3.4', port: 8000, requiresKey: true }],
    ['http://h:9000/api/v1/', { host: 'h', port: 9000, path: '/api/v1', requiresKey: true }],
    ['https://e.example', { host: 'https://e.example', port: 443, requiresKey: true }],
  ])('reads %s', (url, expected) => {
    expect(engineOf(url)).toEqual(expected);
  });

  it.each(['', 'not a url', 'ftp://h/'])('ignores %j', (url) => {
    expect(engineOf(url)).toBeUndefined();
  });
});

describe('statsOf', () => {
  it('keeps the deploy facts while stopped and only the fields Stats defines', () => {
    expect(
      statsOf(
        {
          state: 'stopped',
          runner: 'vllm',
          modelId: 'org/m',
          instanceType: 'g6e.xlarge',
          extra: 1,
        },
        NOW,
      ),
    ).toEqual({ state: 'stopped', runner: 'vllm', modelId: 'org/m', instanceType: 'g6e.xlarge' });
  });
});
