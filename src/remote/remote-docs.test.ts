/**
 * docs/remote.md cannot drift from the code: its worked fleet example parses into the fleet it
 * describes, and every call the control-plane client makes (method, URL, query parameters) is in
 * the protocol's OpenAPI document, docs/remote-openapi.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { asRemote } from '../../test/support/project-files/fleet-node.ts';
import { parseFleet } from '../core/fleet/file/fleet-file.ts';
import { ControlPlane } from '../core/remote/control-plane.ts';
import type { CallInput } from '../core/remote/transport.ts';

const docs = join(fileURLToPath(import.meta.url), '../../../docs');
const page = readFileSync(join(docs, 'remote.md'), 'utf8');

interface Operation {
  parameters?: ({ name?: string; $ref?: string } | undefined)[];
  requestBody?: unknown;
}
const openapi = JSON.parse(readFileSync(join(docs, 'remote-openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation | string>>;
};

describe('docs/remote.md', () => {
  it('has a worked fleet example that parses, mixing a daemon and remote nodes', () => {
    const example = /```yaml\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
    const env = {
      WORKSTATION_TOKEN: 'w',
      LOCAL_ENGINE_KEY: 'l',
      CLOUD_ENGINE_KEY: 'c',
      BIG_ENGINE_KEY: 'b',
    };
    const result = parseFleet(example, 'fleet.yaml', { env, dotenv: {} });
    expect(result.ok ? undefined : result.problems).toBeUndefined();
    if (!result.ok) {
      return;
    }
    expect(
      result.value.nodes.map((node) => [node.name, node.kind, node.engineKey, node.wake]),
    ).toEqual([
      ['workstation', 'daemon', 'l', 'on'],
      ['gpu-cloud', 'remote', 'c', 'on'],
      ['gpu-big', 'remote', 'b', 'off'],
    ]);
    expect(asRemote(result.value.nodes[1]).instanceType).toBe('g6e.xlarge');
  });
});

describe('docs/remote-openapi.json', () => {
  it('declares every call the client makes, with each query parameter it sends', async () => {
    const calls: CallInput[] = [];
    const plane = new ControlPlane(
      {
        name: 'cloud',
        environment: 'prod',
        region: 'us-east-1',
        urls: {
          start_url: 'https://cp.example/start',
          stop_url: 'https://cp.example/stop',
          stats_url: 'https://cp.example/stats',
          update_url: 'https://cp.example/update',
          deploy_url: 'https://cp.example/deploy',
          env_url: 'https://cp.example/env',
        },
      },
      {
        transport: (input) => {
          calls.push(input);
          return Promise.resolve({ status: 200, json: { state: 'ready' } });
        },
        now: () => 0,
        sleep: () => Promise.resolve(),
      },
    );
    await plane.status();
    await plane.start({ retainUntil: '2026-01-01T00:00:00Z' });
    await plane.stop();
    await plane.pause(true);
    await plane.stats();
    await plane.keep(new Date(3_600_000));
    await plane.env();
    await plane.deploy({ runner: 'vllm' });
    expect(calls).toHaveLength(8);
    for (const call of calls) {
      const operation = openapi.paths[call.url.pathname]?.[call.method.toLowerCase()];
      expect(operation, `${call.method} ${call.url.pathname}`).toBeTypeOf('object');
      const declared = ((operation as Operation).parameters ?? []).map((parameter) =>
        parameter?.$ref === undefined ? parameter?.name : parameter.$ref.split('/').at(-1),
      );
      for (const name of call.url.searchParams.keys()) {
        expect(declared, `${call.method} ${call.url.pathname} ?${name}`).toContain(name);
      }
      expect((operation as Operation).requestBody !== undefined).toBe(call.body !== undefined);
    }
  });
});
