/**
 * `svc fleet route` (docs/design.md D33): the gateway's live decision when the fleet file names a
 * gateway that answers, else the gateway's own scheduler over the nodes' status and sources alone,
 * said so; the engine a served request goes to; exit 1 only for a refusal. Starts nothing.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../test/support/project-files/fleet-node.ts';
import type { DeployConfig, StatusResponse } from '../core/contract/schemas.ts';
import type { NodeDriver } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
import type { RouteDecision } from '../core/fleet/scheduling/route-decision.ts';
import { runRoute } from './route-command.ts';

const node = (name: string, extra: Partial<FleetNode> = {}): FleetNode =>
  daemonNode(name, { engine: { host: '127.0.0.1' }, ...extra });

const A = node('a');
const B = node('b');
const C = node('c', { wake: 'off' });

function driver(
  statuses: Record<string, Partial<StatusResponse> | Error>,
  sources: Record<string, string>,
): Pick<NodeDriver, 'status' | 'wakeSource'> {
  return {
    status: (target) => {
      const status = statuses[target.name];
      return Promise.resolve(
        status instanceof Error || status === undefined
          ? { ok: false, outcome: 'unreachable', detail: status?.message ?? 'no answer' }
          : { ok: true, value: { state: 'stopped', version: 'dev', ...status } },
      );
    },
    wakeSource: (target) => {
      const model = sources[target.name];
      if (model === undefined) {
        return Promise.reject(new Error('no Svcfile source'));
      }
      const config: DeployConfig = { runner: 'llamacpp', modelId: model };
      return Promise.resolve({ source: `/${target.name}.svc`, config });
    },
  };
}

async function route(
  fleet: Fleet,
  model: string,
  nodes: Pick<NodeDriver, 'status' | 'wakeSource'>,
  extra: Partial<Parameters<typeof runRoute>[0]> = {},
): Promise<{ code: number; text: string; json: RouteDecision & { engine?: string } }> {
  let text = '';
  let json = '';
  const base = { fleet, model, driver: nodes, ...extra };
  const code = await runRoute({ ...base, json: false, write: (chunk) => (text += chunk) });
  await runRoute({ ...base, json: true, write: (chunk) => (json += chunk) });
  return { code, text, json: JSON.parse(json) as RouteDecision & { engine?: string } };
}

const RUNNING = {
  state: 'running',
  model: 'tiny',
  engine: { port: 9000 },
  ready: 'ready',
} as const;

describe('svc fleet route from the nodes alone', () => {
  it('names the running node and its engine, and says it asked no gateway', async () => {
    const fleet: Fleet = { path: 'fleet.yaml', nodes: [A, B] };
    const { code, text, json } = await route(fleet, 'tiny', driver({ a: RUNNING, b: {} }, {}));
    expect(code).toBe(0);
    expect(json).toMatchObject({ action: 'serve', node: 'a', engine: 'http://127.0.0.1:9000/v1' });
    expect(text).toMatch(/^tiny → a \(serve\): "a" serves tiny and has a free slot\n/);
    expect(text).toContain('engine: http://127.0.0.1:9000/v1');
    expect(text).toContain("worked out from the nodes' status alone (fleet.yaml names no gateway)");
  });

  it('waits for a node loading the model rather than waking another', async () => {
    const fleet: Fleet = { path: 'fleet.yaml', nodes: [A, B] };
    const loading = { ...RUNNING, ready: 'not-ready' } as const;
    const { json } = await route(fleet, 'tiny', driver({ a: loading, b: {} }, { b: 'tiny' }));
    expect(json).toMatchObject({ action: 'wake', node: 'a' });
    expect(json.nodes.find((entry) => entry.name === 'a')?.verdict).toBe('loading');
  });

  it('picks the node a wake would start: stored config first, then file order; wake off never', async () => {
    const fleet: Fleet = { path: 'fleet.yaml', nodes: [A, B, C] };
    const sources = { a: 'other', b: 'tiny', c: 'tiny' };
    const cold = await route(
      fleet,
      'tiny',
      driver({ a: {}, b: {}, c: { model: 'tiny' } }, sources),
    );
    expect(cold.json).toMatchObject({ action: 'wake', node: 'b', stops: [] });
    expect(cold.json.nodes.map(({ name, verdict }) => [name, verdict])).toEqual([
      ['a', 'other'],
      ['b', 'wake'],
      ['c', 'wake-off'],
    ]);
    expect(cold.text).toMatch(/\n {2}c +wake-off +its source describes tiny, but waking is off/);
    const warmFleet: Fleet = { path: 'fleet.yaml', nodes: [A, B, { ...C, wake: 'on' }] };
    const warm = await route(
      warmFleet,
      'tiny',
      driver({ a: {}, b: {}, c: { model: 'tiny' } }, sources),
    );
    expect(warm.json).toMatchObject({ action: 'wake', node: 'c' });
  });

  it('refuses (exit 1) when nothing serves or may be woken, naming the silent node', async () => {
    const fleet: Fleet = { path: 'fleet.yaml', nodes: [A, B] };
    const nodes = driver({ a: {}, b: new Error('ECONNREFUSED') }, {});
    const { code, text, json } = await route(fleet, 'nope', nodes);
    expect(code).toBe(1);
    expect(json).toMatchObject({ action: 'refuse', refusal: 'no_node' });
    expect(text).toMatch(/^nope: refused \(no_node\)/);
    expect(text).toMatch(/\n {2}b +unreachable +unreachable: ECONNREFUSED\n/);
  });

  it('asks the gateway the fleet file names, and falls back to the nodes when it does not answer', async () => {
    const gateway = { name: 'lab', url: 'http://gw:4000', tokenEnv: 'GW_TOKEN', ownTokenEnv: true };
    const fleet: Fleet = { path: 'fleet.yaml', nodes: [A, B], gateway };
    const live: RouteDecision = {
      model: 'tiny',
      action: 'queue',
      stops: [],
      nodes: [
        { name: 'a', verdict: 'full', reason: 'serves tiny; all 1 slots busy', state: 'running' },
      ],
      reason: 'every node serving tiny is full',
      queued: 2,
    };
    const asked: string[] = [];
    const answered = await route(fleet, 'tiny', driver({ a: RUNNING, b: {} }, {}), {
      variables: [{ GW_TOKEN: 'secret' }],
      get: (url, token) => {
        asked.push(`${url} ${token ?? ''}`);
        return Promise.resolve({ status: 200, text: JSON.stringify(live) });
      },
    });
    expect(asked[0]).toBe('http://gw:4000/v1/fleet/route?model=tiny secret');
    expect(answered.json).toMatchObject({ action: 'queue', queued: 2 });
    expect(answered.text).toContain('queued: 2 already wait for tiny');
    expect(answered.text).toContain('the live decision of the gateway lab at http://gw:4000');
    expect(answered.text).not.toContain('secret');
    const silent = await route(fleet, 'tiny', driver({ a: RUNNING, b: {} }, {}), {
      get: () => Promise.reject(new Error('connect ECONNREFUSED')),
    });
    expect(silent.json).toMatchObject({ action: 'serve', node: 'a' });
    expect(silent.text).toContain('note: the gateway did not answer');
  });
});
