/**
 * A local node driven from outside its gateway (docs/design.md D27): status from the gateway's
 * /v1/fleet, stats from /v1/fleet/stats, start, stop and logs through its node endpoints with the
 * operator token when the file names one (docs/design.md D28), every failure a reply naming the
 * node, never a throw.
 */
import { describe, expect, it } from 'vitest';

import { localNode } from '../../../../test/support/project-files/fleet-node.ts';
import type { Fleet } from '../file/fleet-file.ts';
import {
  gatewayBase,
  type GatewayCall,
  gatewayLocalDriver,
  gatewayNodeAct,
} from './gateway-local-driver.ts';

const FLEET: Fleet = {
  path: '/nowhere/fleet.yaml',
  nodes: [localNode('a')],
  gateway: { url: 'http://box:4000/v1', tokenEnv: 'GW', ownTokenEnv: true, name: 'box' },
};

function driver(answers: Record<string, unknown>, fleet: Fleet = FLEET) {
  const calls: string[] = [];
  const call: GatewayCall = (method, path, token) => {
    calls.push(`${method} ${path} ${token ?? '-'}`);
    const value = answers[`${method} ${path}`];
    return Promise.resolve(
      value === undefined
        ? { ok: false as const, outcome: 'failed' as const, status: 404, detail: 'HTTP 404' }
        : { ok: true as const, value: value as never },
    );
  };
  const env = { GW: 'gw-token', OP: 'op-token' };
  return { calls, driver: gatewayLocalDriver({ fleet, configDir: '/cfg', env }, 'x', call) };
}

describe('a local node through its gateway', () => {
  it('strips /v1 and trailing slashes from the section url', () => {
    expect(gatewayBase('http://box:4000/v1/')).toBe('http://box:4000');
    expect(gatewayBase('https://gw.example/fleet')).toBe('https://gw.example/fleet');
  });

  it("reads status from /v1/fleet with the gateway token, without the entry's fleet facts", async () => {
    const { calls, driver: d } = driver({
      'GET /v1/fleet': {
        nodes: [
          { name: 'a', kind: 'local', state: 'running', servedName: 'alpha', ready: 'ready' },
        ],
      },
    });
    expect(await d.status(localNode('a'))).toEqual({
      ok: true,
      value: { state: 'running', servedName: 'alpha', ready: 'ready' },
    });
    expect(calls).toEqual(['GET /v1/fleet gw-token']);
  });

  it("keeps a running entry's capacity and activity, and leaves the gateway's scheduling facts out", async () => {
    const { driver: d } = driver({
      'GET /v1/fleet': {
        nodes: [
          {
            name: 'a',
            kind: 'local',
            group: 'gpu',
            state: 'running',
            servedName: 'alpha',
            ready: 'ready',
            lastActiveAt: '2026-11-26T02:00:00.000Z',
            slots: 4,
            busy: 0,
            inFlight: 0,
            idleStopAt: '2026-11-26T02:10:00.000Z',
          },
        ],
      },
    });
    // docs/design.md D25, D26: busy and slots are the node's; group, inFlight and idleStopAt are
    // the fleet file's and the gateway's, which svc fleet status reads beside the node
    // (gateway-readout.ts).
    expect(await d.status(localNode('a'))).toEqual({
      ok: true,
      value: {
        state: 'running',
        servedName: 'alpha',
        ready: 'ready',
        lastActiveAt: '2026-11-26T02:00:00.000Z',
        slots: 4,
        busy: 0,
      },
    });
  });

  it('reports a node the gateway does not list, or lists as failed, as a failure', async () => {
    const { driver: d } = driver({
      'GET /v1/fleet': { nodes: [{ name: 'b', kind: 'local', state: 'failed', detail: 'boom' }] },
    });
    expect(await d.status(localNode('a'))).toMatchObject({ ok: false, outcome: 'failed' });
    expect(await d.status(localNode('b'))).toEqual({
      ok: false,
      outcome: 'failed',
      detail: 'boom',
    });
  });

  it('starts and stops through the node endpoints, with the operator token when named', async () => {
    const fleet: Fleet = { ...FLEET, operator: { tokenEnv: 'OP' } };
    const { calls, driver: d } = driver(
      {
        'POST /v1/fleet/nodes/a/start': { name: 'a', state: 'running' },
        'POST /v1/fleet/nodes/a/stop': { name: 'a', state: 'stopped' },
      },
      fleet,
    );
    const source = { source: 'a/Svcfile', config: { runner: 'llamacpp' as const } };
    expect(await d.start(localNode('a'), source)).toEqual({
      ok: true,
      value: { state: 'running' },
    });
    expect(await d.stop(localNode('a'))).toEqual({ ok: true, value: { state: 'stopped' } });
    expect(calls).toEqual([
      'POST /v1/fleet/nodes/a/start op-token',
      'POST /v1/fleet/nodes/a/stop op-token',
    ]);
  });

  it('forces with ?force=true, and passes a 409 on as a refusal, never as "already running"', async () => {
    const { calls, driver: d } = driver({
      'POST /v1/fleet/nodes/a/start?force=true': { name: 'a', state: 'running' },
      'POST /v1/fleet/nodes/a/stop?force=true': { name: 'a', state: 'stopped' },
    });
    const source = { source: 'a/Svcfile', config: { runner: 'llamacpp' as const } };
    expect(await d.start(localNode('a'), source, { force: true })).toMatchObject({ ok: true });
    expect(await d.stop(localNode('a'), { force: true })).toMatchObject({ ok: true });
    expect(calls).toEqual([
      'POST /v1/fleet/nodes/a/start?force=true gw-token',
      'POST /v1/fleet/nodes/a/stop?force=true gw-token',
    ]);
    const busy: GatewayCall = () =>
      Promise.resolve({ ok: false, outcome: 'failed', status: 409, detail: 'group_busy' });
    const refusing = gatewayNodeAct({ fleet: FLEET, configDir: '/cfg', env: {} }, busy);
    expect(await refusing(localNode('a'), 'start', false)).toEqual({
      ok: false,
      outcome: 'failed',
      detail: 'group_busy',
    });
  });

  it('reads log slices from the node logs endpoint with the query, as the operator', async () => {
    const slice = { content: 'loaded\n', nextOffset: 7, size: 7, path: '/cfg/nodes/a/engine.log' };
    const { calls, driver: d } = driver(
      {
        'GET /v1/fleet/nodes/a/logs': slice,
        'GET /v1/fleet/nodes/a/logs?offset=3&limit=10': { ...slice, content: 'ded\n' },
      },
      { ...FLEET, operator: { tokenEnv: 'OP' } },
    );
    expect(await d.logs?.(localNode('a'), {})).toEqual({ ok: true, value: slice });
    expect(await d.logs?.(localNode('a'), { offset: 3, limit: 10 })).toMatchObject({
      ok: true,
      value: { content: 'ded\n' },
    });
    expect(calls).toEqual([
      'GET /v1/fleet/nodes/a/logs op-token',
      'GET /v1/fleet/nodes/a/logs?offset=3&limit=10 op-token',
    ]);
  });

  it('reads logs with the gateway token when the file names no operator, and passes on a refusal', async () => {
    const { calls, driver: d } = driver({});
    expect(await d.logs?.(localNode('a'), { offset: 0 })).toMatchObject({
      ok: false,
      status: 404,
    });
    expect(calls).toEqual(['GET /v1/fleet/nodes/a/logs?offset=0 gw-token']);
  });

  it("answers stats from /v1/fleet/stats, and the gateway's error when it has none", async () => {
    const { driver: d } = driver({
      'GET /v1/fleet/stats': {
        nodes: [
          { name: 'a', stats: { state: 'running' } },
          { name: 'b', error: 'node "b" refused' },
        ],
      },
    });
    expect(await d.stats(localNode('a'))).toEqual({ ok: true, value: { state: 'running' } });
    expect(await d.stats(localNode('b'))).toEqual({
      ok: false,
      outcome: 'failed',
      detail: 'node "b" refused',
    });
  });
});
