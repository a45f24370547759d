import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import { LedgerInFlight } from '../../../test/support/scheduling/scheduling.ts';
import type { DeployConfig, StatusResponse } from '../../core/contract/schemas.ts';
import type { NodeReply } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshot.ts';
import { errorBody, GatewayError } from '../../core/http/gateway-error.ts';
import { RequestCounts } from '../metrics/request-counts.ts';
import {
  type ControlAsk,
  controlNode,
  type ControlView,
  fleetStats,
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

interface Harness {
  view: ControlView;
  client: NodeControlClient;
  calls: string[];
  recorded: NodeSnapshot[];
  /** Requests in flight, on a clock the test moves (`clock.now`, ms): the scheduler's ledger. */
  inFlight: LedgerInFlight;
  /** Requests the scheduler holds queued for each node's models. */
  queued: Map<string, number>;
  clock: { now: number };
}

/**
 * A view of nodes a and gpu-box that keeps what was recorded, a client that logs its calls, and
 * an empty count of requests in flight.
 */
function harness(answers: Partial<NodeControlClient> = {}): Harness {
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
  const clock = { now: 0 };
  const inFlight = new LedgerInFlight(['a', 'gpu-box'], clock);
  return { view, client, calls, recorded, inFlight, queued: new Map(), clock };
}

/** `POST /v1/fleet/nodes/{name}/{action}` as an operator, unless `extra` says otherwise. */
function act(
  test: Harness,
  name: string,
  action: 'start' | 'stop',
  extra: Partial<ControlAsk> = {},
): Promise<string> {
  const scheduler = {
    queuedFor: (node: string) => test.queued.get(node) ?? 0,
    inFlightOf: (node: string, now: number) => test.inFlight.scheduler.inFlightOf(node, now),
  };
  const ask: ControlAsk = { name, action, rights: 'operate', ...extra };
  return controlNode(
    test.view,
    test.client,
    {
      scheduler,
      now: () => test.clock.now,
      relays: {
        cut: (reason, node) => {
          test.calls.push(`cut ${node ?? 'all'}: ${reason.code}`);
          return Promise.resolve();
        },
      },
      startNode: (node, force, run) => {
        test.calls.push(`scheduler start ${node}${force ? ' (force)' : ''}`);
        return run();
      },
    },
    ask,
  );
}

/** The refusal `promise` rejects with. */
async function refusalOf(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('controlNode', () => {
  it("starts a node with its own source's config and records the answer as its snapshot", async () => {
    const test = harness();
    const { calls, recorded } = test;
    const reply = JSON.parse(await act(test, 'a', 'start')) as unknown;
    expect(reply).toEqual({ name: 'a', state: 'running', version: 'dev' });
    expect(calls).toEqual(['scheduler start a', 'start a /models/tiny.gguf']);
    expect(recorded).toEqual([{ node: node('a'), ok: true, status: running.value }]);
  });

  it('reports what runs when the node is already running (start is idempotent)', async () => {
    const test = harness({
      start: () => Promise.resolve(refused(409, 'an engine is already running')),
    });
    const { calls } = test;
    expect(JSON.parse(await act(test, 'a', 'start'))).toMatchObject({
      state: 'running',
    });
    expect(calls).toEqual(['scheduler start a', 'start a /models/tiny.gguf', 'status a']);
  });

  it('stops a node', async () => {
    const test = harness();
    const { calls, recorded } = test;
    expect(JSON.parse(await act(test, 'gpu-box', 'stop'))).toMatchObject({
      name: 'gpu-box',
      state: 'stopped',
    });
    expect(calls).toEqual(['stop gpu-box']);
    expect(recorded).toHaveLength(1);
  });

  it('refuses an unknown node naming the closest one, calling nothing', async () => {
    const test = harness();
    const { calls } = test;
    const refusal = await refusalOf(act(test, 'gpu-bx', 'stop'));
    expect(refusal.status).toBe(404);
    expect(refusal.message).toContain('did you mean "gpu-box"?');
    expect(calls).toEqual([]);
  });

  it("passes a node's refusal on as 502 naming the node, recording nothing", async () => {
    const test = harness({
      stop: () => Promise.resolve(refused(500, 'engine would not stop')),
    });
    const { recorded } = test;
    const refusal = await refusalOf(act(test, 'a', 'stop'));
    expect(refusal.status).toBe(502);
    expect(refusal.message).toBe('node "a" refused to stop: engine would not stop');
    expect(recorded).toEqual([]);
  });
});

describe('controlNode: operator rights (docs/design.md D28)', () => {
  it('refuses start and stop to a token that may only use the fleet: 403, calling nothing', async () => {
    const test = harness();
    for (const action of ['start', 'stop'] as const) {
      const refusal = await refusalOf(act(test, 'a', action, { rights: 'use' }));
      expect(refusal.status).toBe(403);
      expect(JSON.parse(errorBody(refusal))).toEqual({
        error: {
          message:
            "starting and stopping nodes needs the operator token (the fleet file's gateway.operatorTokenEnv); this token may use models and read the fleet",
          type: 'invalid_request_error',
          code: 'insufficient_permissions',
        },
      });
    }
    // Before the node is even looked up: an unknown name tells a non-operator nothing.
    expect((await refusalOf(act(test, 'nope', 'stop', { rights: 'use' }))).status).toBe(403);
    expect(test.calls).toEqual([]);
    expect(test.recorded).toEqual([]);
  });
});

describe('controlNode: a busy node (docs/design.md D28)', () => {
  it('refuses to stop a node with requests in flight: 409 naming how many, which models, how long', async () => {
    const test = harness();
    test.inFlight.begin('a', 'qwen');
    test.clock.now = 4_000;
    test.inFlight.begin('a', 'gemma');
    test.inFlight.begin('a', 'qwen');
    test.inFlight.begin('gpu-box', 'other');
    test.clock.now = 12_400;
    const refusal = await refusalOf(act(test, 'a', 'stop'));
    expect(refusal.status).toBe(409);
    expect(JSON.parse(errorBody(refusal))).toEqual({
      error: {
        message:
          'node "a" has 3 requests in flight through this gateway (2 for qwen, 1 for gemma; the oldest has run 12s): stopping it would cut them off; stop it once they end, or stop it anyway with ?force=true',
        type: 'invalid_request_error',
        code: 'node_busy',
      },
    });
    expect((await refusalOf(act(test, 'a', 'stop', { force: 'false' }))).status).toBe(409);
    expect(test.calls).toEqual([]);
  });

  it('refuses to stop a node that requests wait for in the queue, naming them, calling nothing', async () => {
    const test = harness();
    test.queued.set('a', 2);
    const refusal = await refusalOf(act(test, 'a', 'stop'));
    expect([refusal.status, refusal.code, refusal.message]).toEqual([
      409,
      'node_busy',
      'node "a" has 2 requests queued here for its models: stopping it would cut them off; stop it once they end, or stop it anyway with ?force=true',
    ]);
    // One request is named as such, beside the queued ones.
    test.inFlight.begin('a', 'qwen');
    test.clock.now = 90_000;
    expect((await refusalOf(act(test, 'a', 'stop'))).message).toContain(
      'has 1 request in flight through this gateway (1 for qwen; the oldest has run 90s) and 2 requests queued here',
    );
    expect(test.calls).toEqual([]);
  });

  it('stops a busy node anyway with force=true, its relayed replies cut first', async () => {
    const test = harness();
    test.inFlight.begin('a', 'qwen');
    expect(JSON.parse(await act(test, 'a', 'stop', { force: 'true' }))).toMatchObject({
      name: 'a',
      state: 'stopped',
    });
    expect(test.calls).toEqual(['cut a: node_stopped', 'stop a']);
  });

  it('stops a node once its requests ended, and a node whose neighbour is busy', async () => {
    const test = harness();
    const release = test.inFlight.begin('a', 'qwen');
    test.inFlight.begin('gpu-box', 'qwen');
    release();
    await act(test, 'a', 'stop');
    expect(test.calls).toEqual(['stop a']);
  });

  it('refuses a force that is neither true nor false, stopping nothing', async () => {
    const test = harness();
    const refusal = await refusalOf(act(test, 'a', 'stop', { force: 'yes' }));
    expect(refusal.status).toBe(400);
    expect(refusal.message).toBe('force must be true or false, not "yes"');
    expect(test.calls).toEqual([]);
  });

  it('starts a node whatever is in flight elsewhere, passing its force to the scheduler', async () => {
    const test = harness();
    test.inFlight.begin('a', 'qwen');
    await act(test, 'a', 'start', { force: 'true' });
    expect(test.calls).toEqual(['scheduler start a (force)', 'start a /models/tiny.gguf']);
    expect((await refusalOf(act(test, 'a', 'start', { force: '1' }))).status).toBe(400);
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
    expect(JSON.parse(await fleetStats(view, client, new RequestCounts()))).toEqual({
      nodes: [
        { name: 'a', stats: { history: [] } },
        { name: 'gpu-box', error: 'unreachable' },
      ],
    });
  });
});
