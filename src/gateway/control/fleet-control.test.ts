import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/fleet-node.ts';
import type { DeployConfig, StatusResponse } from '../../core/contract/schemas.ts';
import type { NodeReply } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshot.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import {
  controlNode,
  type ControlView,
  fleetStats,
  nodeActionOf,
  type NodeControlClient,
} from './fleet-control.ts';

const node = (name: string): FleetNode => daemonNode(name, { port: 1 });

const CONFIG: DeployConfig = { runner: 'llamacpp', modelId: '/models/tiny.gguf' };
const running: NodeReply<StatusResponse> = {
  ok: true,
  value: { state: 'running', version: 'dev' },
};
const refused = (status: number, detail: string): NodeReply<never> => ({
  ok: false,
  outcome: 'failed',
  status,
  detail,
});

/** A view of nodes a and gpu-box that keeps what was recorded, and a client that logs its calls. */
function harness(answers: Partial<NodeControlClient> = {}): {
  view: ControlView;
  client: NodeControlClient;
  calls: string[];
  recorded: NodeSnapshot[];
} {
  const calls: string[] = [];
  const recorded: NodeSnapshot[] = [];
  const view: ControlView = {
    fleet: { path: '/etc/svc/fleet.yaml', nodes: [node('a'), node('gpu-box')] },
    source: () => Promise.resolve({ source: '/srv/Svcfile', config: CONFIG }),
    states: { now: () => 1, record: (snapshot) => recorded.push(snapshot) },
  };
  const client: NodeControlClient = {
    status: (target) => {
      calls.push(`status ${target.name}`);
      return answers.status?.(target) ?? Promise.resolve(running);
    },
    start: (target, source) => {
      calls.push(`start ${target.name} ${source.config.modelId}`);
      return answers.start?.(target, source) ?? Promise.resolve(running);
    },
    stop: (target) => {
      calls.push(`stop ${target.name}`);
      return (
        answers.stop?.(target) ??
        Promise.resolve({ ok: true, value: { state: 'stopped', version: 'dev' } })
      );
    },
    stats: (target) =>
      answers.stats?.(target) ?? Promise.resolve(refused(503, `${target.name} has no stats`)),
  };
  return { view, client, calls, recorded };
}

describe('nodeActionOf', () => {
  it('reads the node and the action of a control path', () => {
    expect(nodeActionOf('/v1/fleet/nodes/a/start')).toEqual({ name: 'a', action: 'start' });
    expect(nodeActionOf('/v1/fleet/nodes/gpu%20box/stop')).toEqual({
      name: 'gpu box',
      action: 'stop',
    });
  });

  it('leaves anything else alone', () => {
    expect(nodeActionOf('/v1/fleet/nodes/a/restart')).toBeUndefined();
    expect(nodeActionOf('/v1/fleet/nodes/a/b/start')).toBeUndefined();
    expect(nodeActionOf('/v1/fleet/nodes//start')).toBeUndefined();
    expect(nodeActionOf('/v1/fleet/nodes/%E0%A4%A/start')).toBeUndefined();
  });
});

describe('controlNode', () => {
  it("starts a node with its own source's config and records the answer as its snapshot", async () => {
    const { view, client, calls, recorded } = harness();
    const reply = JSON.parse(await controlNode(view, client, 'a', 'start')) as unknown;
    expect(reply).toEqual({ name: 'a', state: 'running', version: 'dev' });
    expect(calls).toEqual(['start a /models/tiny.gguf']);
    expect(recorded).toEqual([{ node: node('a'), ok: true, status: running.value }]);
  });

  it('reports what runs when the node is already running (start is idempotent)', async () => {
    const { view, client, calls } = harness({
      start: () => Promise.resolve(refused(409, 'an engine is already running')),
    });
    expect(JSON.parse(await controlNode(view, client, 'a', 'start'))).toMatchObject({
      state: 'running',
    });
    expect(calls).toEqual(['start a /models/tiny.gguf', 'status a']);
  });

  it('stops a node', async () => {
    const { view, client, calls, recorded } = harness();
    expect(JSON.parse(await controlNode(view, client, 'gpu-box', 'stop'))).toMatchObject({
      name: 'gpu-box',
      state: 'stopped',
    });
    expect(calls).toEqual(['stop gpu-box']);
    expect(recorded).toHaveLength(1);
  });

  it('refuses an unknown node naming the closest one, calling nothing', async () => {
    const { view, client, calls } = harness();
    const refusal = await controlNode(view, client, 'gpu-bx', 'stop').catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(GatewayError);
    expect((refusal as GatewayError).status).toBe(404);
    expect((refusal as GatewayError).message).toContain('did you mean "gpu-box"?');
    expect(calls).toEqual([]);
  });

  it("passes a node's refusal on as 502 naming the node, recording nothing", async () => {
    const { view, client, recorded } = harness({
      stop: () => Promise.resolve(refused(500, 'engine would not stop')),
    });
    const refusal = await controlNode(view, client, 'a', 'stop').catch((e: unknown) => e);
    expect((refusal as GatewayError).status).toBe(502);
    expect((refusal as GatewayError).message).toBe(
      'node "a" refused to stop: engine would not stop',
    );
    expect(recorded).toEqual([]);
  });
});

describe('fleetStats', () => {
  it("lists each node's stats or why it has none, in file order", async () => {
    const { view, client } = harness({
      stats: (target) =>
        Promise.resolve(
          target.name === 'a'
            ? { ok: true, value: { history: [] } as never }
            : refused(503, 'unreachable'),
        ),
    });
    expect(JSON.parse(await fleetStats(view, client))).toEqual({
      nodes: [
        { name: 'a', stats: { history: [] } },
        { name: 'gpu-box', error: 'unreachable' },
      ],
    });
  });
});
