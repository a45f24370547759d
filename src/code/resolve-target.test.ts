/**
 * `svc code --node`: the node is asked only through the driver it is given (docs/design.md D21), so
 * a remote node is asked as a remote node, and its published engine is what the agent gets.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode, remoteNode } from '../../test/support/project-files/fleet-node.ts';
import type { StatusResponse } from '../core/contract/schemas.ts';
import type { NodeDriver, NodeReply, NodeStatus } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
import type { AgentKey } from './agent-target.ts';
import type { PropsClient } from './engine-window.ts';
import { nodeTarget } from './resolve-target.ts';

const RUNNING: StatusResponse = {
  state: 'running',
  runner: 'llamacpp',
  model: 'org/model',
  servedName: 'chat',
  ready: 'ready',
  version: 'dev',
};

/** A driver that answers every status with `reply`, recording which node (and kind) it was asked. */
function fakeDriver(reply: NodeReply<NodeStatus>): {
  driver: Pick<NodeDriver, 'status'>;
  asked: string[];
} {
  const asked: string[] = [];
  return {
    asked,
    driver: {
      status: (node) => {
        asked.push(`${node.kind} ${node.name}`);
        return Promise.resolve(reply);
      },
    },
  };
}

const fleetOf = (...nodes: FleetNode[]): Fleet => ({ path: 'fleet.yaml', nodes });

describe('nodeTarget', () => {
  it("points at a remote node's published engine with its key's variable, asking its driver", async () => {
    const gpu = remoteNode('gpu', { engineTokenEnv: 'ENGINE_KEY', engineKey: 'k-1' });
    const { driver, asked } = fakeDriver({
      ok: true,
      value: { ...RUNNING, engine: { host: 'https://e.example', port: 443, requiresKey: true } },
    });
    const target = await nodeTarget({ fleet: fleetOf(gpu), name: 'gpu', env: {}, driver });
    expect(asked).toEqual(['remote gpu']);
    expect(target).toEqual({
      providerId: 'gpu',
      label: 'svc node gpu',
      baseUrl: 'https://e.example/v1',
      models: ['chat'],
      defaultModel: 'chat',
      key: { variable: 'ENGINE_KEY', value: 'k-1' },
    });
  });

  it("points at a daemon node's engine on the node's own host", async () => {
    const { driver, asked } = fakeDriver({
      ok: true,
      value: { ...RUNNING, engine: { host: '0.0.0.0', port: 8080 } },
    });
    const target = await nodeTarget({
      fleet: fleetOf(daemonNode('box', { host: 'box.lan' })),
      name: 'box',
      env: {},
      model: 'chat',
      driver,
    });
    expect(asked).toEqual(['daemon box']);
    expect(target.baseUrl).toBe('http://box.lan:8080/v1');
  });

  it("says why a node cannot be asked, in the driver's words", async () => {
    const { driver } = fakeDriver({
      ok: false,
      outcome: 'config-error',
      detail: 'remote environment "gpu" is not registered: run svc remote add gpu',
    });
    await expect(
      nodeTarget({ fleet: fleetOf(remoteNode('gpu')), name: 'gpu', env: {}, driver }),
    ).rejects.toThrow(
      'node "gpu" config-error: remote environment "gpu" is not registered: run svc remote add gpu',
    );
  });

  it('refuses a node serving nothing, naming how to start it', async () => {
    const { driver } = fakeDriver({ ok: true, value: { state: 'stopped' } });
    await expect(
      nodeTarget({ fleet: fleetOf(remoteNode('gpu')), name: 'gpu', env: {}, driver }),
    ).rejects.toThrow('node "gpu" is stopped, serving nothing: start it with svc fleet start gpu');
  });

  it('refuses a node whose own variable is set nowhere before asking it (docs/design.md D24)', async () => {
    const { driver, asked } = fakeDriver({ ok: true, value: RUNNING });
    const fleet = fleetOf(
      daemonNode('box', { tokenEnv: 'BOX_TOKEN' }),
      remoteNode('gpu', { engineTokenEnv: 'GPU_KEY' }),
    );
    await expect(nodeTarget({ fleet, name: 'box', env: {}, driver })).rejects.toThrow(
      'BOX_TOKEN is not set (node "box", tokenEnv)',
    );
    await expect(nodeTarget({ fleet, name: 'gpu', env: {}, driver })).rejects.toThrow(
      'GPU_KEY is not set (node "gpu", engineTokenEnv)',
    );
    await expect(nodeTarget({ fleet, name: 'nope', env: {}, driver })).rejects.toThrow(
      '--node "nope" is not in fleet.yaml (nodes: box, gpu)',
    );
    expect(asked).toEqual([]);
  });
});

/** A /props client answering `reply` (or throwing it), recording each URL and key it was given. */
function propsClient(reply: unknown): { client: PropsClient; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    client: (url: string, key: AgentKey | undefined) => {
      asked.push(`${url} ${key?.variable ?? '-'}`);
      return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply);
    },
  };
}

describe('nodeTarget sizes the agent from the running engine (engine-window.ts)', () => {
  it("takes one slot's n_ctx from the engine's /props, asked with the engine's key", async () => {
    const { client, asked } = propsClient({ default_generation_settings: { n_ctx: 8192 } });
    const target = await nodeTarget({
      fleet: {
        path: 'fleet.yaml',
        nodes: [remoteNode('gpu', { engineTokenEnv: 'ENGINE_KEY', engineKey: 'k-1' })],
      },
      name: 'gpu',
      env: {},
      driver: fakeDriver({
        ok: true,
        value: {
          ...RUNNING,
          engine: { host: 'https://e.example', port: 443, requiresKey: true },
        },
      }).driver,
      props: client,
    });
    expect(asked).toEqual(['https://e.example/props ENGINE_KEY']);
    expect(target.limits).toEqual({
      chat: { context: 8192, contextFrom: "n_ctx per slot, from the running engine's GET /props" },
    });
  });

  it('leaves the agent unsized when the engine does not answer or says nothing usable', async () => {
    for (const reply of [
      new Error('ECONNREFUSED'),
      undefined,
      { default_generation_settings: {} },
    ]) {
      const { client } = propsClient(reply);
      const target = await nodeTarget({
        fleet: { path: 'fleet.yaml', nodes: [daemonNode('box', { host: 'box.lan' })] },
        name: 'box',
        env: {},
        driver: fakeDriver({
          ok: true,
          value: { ...RUNNING, engine: { host: '0.0.0.0', port: 8080 } },
        }).driver,
        props: client,
      });
      expect(target.limits).toBeUndefined();
      expect(target.baseUrl).toBe('http://box.lan:8080/v1');
    }
  });
});
