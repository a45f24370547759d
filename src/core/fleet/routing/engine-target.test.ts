/**
 * The engine URL and key the gateway uses to reach a chosen node's engine (spec §2.2, §4.2):
 * the node's host or a remote environment's published address, overrides, and the refusals.
 */
import { describe, expect, it } from 'vitest';

import { localNode, remoteNode } from '../../../../test/support/project-files/fleet-node.ts';
import {
  gpu,
  node,
  type OkSnapshot,
  running,
} from '../../../../test/support/scheduling/route-snapshots.ts';
import type { StatusResponse } from '../../contract/schemas.ts';
import type { FleetNode } from '../file/fleet-file.ts';
import { engineTarget, loopbackOnly } from './engine-target.ts';

function target(snapshot: OkSnapshot): { baseUrl: string; key?: string } {
  const result = engineTarget(snapshot, 'fleet.yaml');
  if ('unusable' in result) {
    throw new Error(`expected an engine target, got: ${result.unusable}`);
  }
  return { baseUrl: result.baseUrl, ...(result.key === undefined ? {} : { key: result.key }) };
}

function refusal(snapshot: OkSnapshot): string {
  const result = engineTarget(snapshot, 'fleet.yaml');
  if (!('unusable' in result)) {
    throw new Error(`expected a refusal, got ${result.baseUrl}`);
  }
  return result.unusable;
}

describe('engineTarget', () => {
  it.each<[string, FleetNode, StatusResponse['engine'], string]>([
    ['node host and engine port', gpu(), { port: 8080 }, 'http://gpu.lan:8080/v1'],
    [
      "not the engine's reported host",
      gpu(),
      { port: 8080, host: '0.0.0.0' },
      'http://gpu.lan:8080/v1',
    ],
    ["the engine's own path", gpu(), { port: 8080, path: '/api/v1' }, 'http://gpu.lan:8080/api/v1'],
    [
      'an override host',
      gpu({ engine: { host: '10.0.0.5' } }),
      { port: 8080 },
      'http://10.0.0.5:8080/v1',
    ],
    ['an override port', gpu({ engine: { port: 9000 } }), { port: 8080 }, 'http://gpu.lan:9000/v1'],
    [
      'an override port with no reported engine',
      gpu({ engine: { port: 9000 } }),
      undefined,
      'http://gpu.lan:9000/v1',
    ],
    [
      'an override path over the engine path',
      gpu({ engine: { path: '/openai/v1/' } }),
      { port: 8080, path: '/api/v1' },
      'http://gpu.lan:8080/openai/v1',
    ],
    [
      'all three overrides',
      gpu({ engine: { host: 'edge', port: 443, path: '/x' } }),
      { port: 8080, path: '/api/v1' },
      'http://edge:443/x',
    ],
    [
      'an override host with a scheme as the origin',
      gpu({ engine: { host: 'https://gpu.example/' } }),
      { port: 8080 },
      'https://gpu.example/v1',
    ],
    [
      "a remote environment's published host",
      remoteNode('gpu'),
      { port: 8000, host: '1.2.3.4' },
      'http://1.2.3.4:8000/v1',
    ],
    [
      "a remote environment's published https origin",
      remoteNode('gpu'),
      { port: 443, host: 'https://e.example' },
      'https://e.example/v1',
    ],
    [
      'an IPv6 node host in brackets',
      gpu({ host: 'fd00::5' }),
      { port: 8080 },
      'http://[fd00::5]:8080/v1',
    ],
  ])('builds the base URL from %s', (_name, subject, engine, baseUrl) => {
    expect(target(running(subject, { engine }))).toEqual({ baseUrl });
  });

  it('refuses an engine with no port anywhere, naming the node', () => {
    const message = refusal(running(node('gpu'), { engine: undefined }));
    expect(message).toContain('node "gpu"');
    expect(message).toContain('engine port');
  });

  it('refuses a remote environment that publishes no engine address, naming the node', () => {
    const message = refusal(running(remoteNode('gpu'), { engine: { port: 8000 } }));
    expect(message).toBe(
      'node "gpu" publishes no engine address: give this node an engine host in fleet.yaml',
    );
  });

  it('presents the node engine key to a gated engine', () => {
    const gpu = node('gpu', { host: 'gpu.lan', engineTokenEnv: 'GPU_KEY', engineKey: 's3cret' });
    expect(target(running(gpu, { engine: { port: 8080, requiresKey: true } }))).toEqual({
      baseUrl: 'http://gpu.lan:8080/v1',
      key: 's3cret',
    });
  });

  it.each([
    ['requiresKey false', { port: 8080, requiresKey: false }],
    ['no requiresKey', { port: 8080 }],
  ])('presents no key to an ungated engine (%s), even when the node has one', (_name, engine) => {
    const gpu = node('gpu', { host: 'gpu.lan', engineTokenEnv: 'GPU_KEY', engineKey: 's3cret' });
    const result = engineTarget(running(gpu, { engine }), 'fleet.yaml');
    expect('unusable' in result ? result.unusable : result.key).toBeUndefined();
  });

  it('refuses a gated engine when the node names no engine key', () => {
    const message = refusal(running(node('gpu'), { engine: { port: 8080, requiresKey: true } }));
    expect(message).toContain('node "gpu"');
    expect(message).toContain('engineTokenEnv');
    expect(message).toContain('fleet.yaml');
  });
});

describe('engineTarget status codes and full origins', () => {
  it('adds the node engine.port to a full origin that names none', () => {
    const gpu = node('gpu', { host: 'gpu.lan', engine: { host: 'http://gpu', port: 8080 } });
    expect(target(running(gpu, { engine: { port: 9999 } })).baseUrl).toBe('http://gpu:8080/v1');
  });

  it('accepts a full origin with no port anywhere', () => {
    const gpu = node('gpu', { host: 'gpu.lan', engine: { host: 'https://gpu.example' } });
    expect(target(running(gpu, { engine: undefined })).baseUrl).toBe('https://gpu.example/v1');
  });

  it('refuses a gated engine without a key with 502, and a loopback-only one with 502', () => {
    const gated = engineTarget(
      running(node('gpu'), { engine: { port: 8080, requiresKey: true } }),
      'fleet.yaml',
    );
    expect('unusable' in gated ? gated.status : 0).toBe(502);
    const local = engineTarget(
      running(node('gpu', { engine: {} }), { engine: { port: 8080, loopbackOnly: true } }),
      'fleet.yaml',
    );
    expect('unusable' in local ? local.status : 0).toBe(502);
  });

  it('reaches a local node engine on loopback, its own machine (docs/design.md D27)', () => {
    const snapshot = running(localNode('box'), { engine: { port: 41001, loopbackOnly: true } });
    expect(target(snapshot)).toEqual({ baseUrl: 'http://127.0.0.1:41001/v1' });
    expect(loopbackOnly(snapshot)).toBe(false);
  });
});
