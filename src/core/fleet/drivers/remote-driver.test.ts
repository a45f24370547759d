import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { remoteNode } from '../../../../test/support/project-files/fleet-node.ts';
import { writeRegistryEntry } from '../../remote/registry.ts';
import type { CallInput, CallReply } from '../../remote/transport.ts';
import type { Fleet } from '../file/fleet-file.ts';
import { remoteDriver } from './remote-driver.ts';

const node = remoteNode('gpu-cloud');

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A remote driver over a registered environment whose control plane answers `reply(call)`. */
async function driverWith(reply: (call: CallInput) => CallReply, register = true) {
  const configDir = await mkdtemp(join(tmpdir(), 'svc-remote-driver-'));
  dirs.push(configDir);
  if (register) {
    await writeRegistryEntry(configDir, node.name, {
      start_url: 'https://cp.example/start',
      stop_url: 'https://cp.example/stop',
      stats_url: 'https://cp.example/stats',
      region: 'eu-west-1',
    });
  }
  const calls: string[] = [];
  const driver = remoteDriver(
    { fleet: { nodes: [node] } as unknown as Fleet, configDir, env: {} },
    {
      transportFor: (region) => (call) => {
        calls.push(`${region} ${call.method} ${call.url.pathname}${call.url.search}`);
        return Promise.resolve(reply(call));
      },
      sleep: () => Promise.resolve(),
    },
  );
  return { driver, calls };
}

describe('remoteDriver', () => {
  it('is a config-error reply naming the fix when the environment is not registered', async () => {
    const { driver, calls } = await driverWith(() => ({ status: 200, json: {} }), false);
    const reply = await driver.status(node);
    expect(reply).toMatchObject({ ok: false, outcome: 'config-error' });
    expect(reply.ok ? '' : reply.detail).toContain('svc remote add gpu-cloud');
    expect(calls).toEqual([]);
  });

  it('maps a status reply, signed for the entry region, with the env query', async () => {
    const { driver, calls } = await driverWith(() => ({
      status: 200,
      json: { state: 'pending', api_key: 'SECRET' },
    }));
    const reply = await driver.status(node);
    expect(reply).toEqual({ ok: true, value: { state: 'pending' } });
    expect(calls).toEqual(['eu-west-1 GET /start?env=gpu-cloud']);
  });

  it('wakes with the deployed config from stats, and says when nothing is deployed', async () => {
    const deployed = await driverWith(() => ({
      status: 200,
      json: { state: 'stopped', runner: 'vllm', modelId: 'org/model' },
    }));
    expect(await deployed.driver.wakeSource(node)).toEqual({
      source: 'remote environment "gpu-cloud" as deployed',
      config: { runner: 'vllm', modelId: 'org/model' },
    });
    const empty = await driverWith(() => ({ status: 400, json: { message: 'no deploy config' } }));
    await expect(empty.driver.wakeSource(node)).rejects.toThrow(
      /node "gpu-cloud" has nothing deployed .*svc fleet deploy gpu-cloud/,
    );
  });

  it('reports a 403 as unauthorized with the credential hint', async () => {
    const { driver } = await driverWith(() => ({ status: 403, json: { message: 'Forbidden' } }));
    const reply = await driver.stats(node);
    expect(reply).toMatchObject({ ok: false, outcome: 'unauthorized', status: 403 });
    expect(reply.ok ? '' : reply.detail).toMatch(/lambda:InvokeFunctionUrl/);
  });
});
