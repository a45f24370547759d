/**
 * The waker against a fake fleet and a fake clock (spec §4.2 rule 5, docs/design.md D13 and D19):
 * one start per node however many wait on it, a start that someone else already made joined rather
 * than failed, a failure the scheduler can move past, a 504 at the wake timeout that leaves the
 * engine loading, and the refusal when nothing may be woken. Which node to wake (warm first, then
 * file order) is the scheduler's (wakes.ts). No process, no socket, no real time.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import { FakeClock } from '../../../test/support/time/fake-clock.ts';
import { track } from '../../../test/support/time/track.ts';
import type { DeployConfig } from '../../core/contract/schemas.ts';
import type { NodeDriver, NodeReply, NodeStatus } from '../../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { EngineTarget } from '../../core/fleet/routing/engine-target.ts';
import { NODE_STATES_DEFAULTS, type NodeSnapshot } from '../../core/fleet/state/node-snapshot.ts';
import { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import { NodeStates } from '../../core/fleet/state/node-states.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { createLogger } from '../../core/logger.ts';
import { POLL_MS } from './wait-ready.ts';
import { Waker } from './wake.ts';

const MODEL = 'tiny';
const TIMEOUT_MS = 10_000;

/** What a fake node is doing: stopped (last serving `reported`), loading or ready, or another model. */
type Engine =
  | { readonly state: 'stopped'; readonly reported?: string }
  | { readonly state: 'loading' | 'ready'; readonly model: string };

/** How a fake node answers a start: started, "already running" (409), or refused. */
type StartAnswer = 'ok' | 'conflict' | 'refused';

interface FakeNode {
  readonly name: string;
  engine: Engine;
  start: StartAnswer;
  /** What a started node loads; the model its Svcfile describes. */
  readonly describes: string;
}

const configOf = (model: string): DeployConfig => ({ runner: 'llamacpp', modelId: model });

function statusOf(engine: Engine): NodeStatus {
  if (engine.state === 'stopped') {
    return {
      state: 'stopped',
      runner: 'llamacpp',
      ...(engine.reported === undefined ? {} : { model: engine.reported }),
      version: 'dev',
    };
  }
  return {
    state: 'running',
    runner: 'llamacpp',
    model: engine.model,
    engine: { port: 8080 },
    ready: engine.state === 'ready' ? 'ready' : 'not-ready',
    version: 'dev',
  };
}

function harness(specs: readonly (Partial<FakeNode> & { name: string })[]) {
  const clock = new FakeClock();
  const nodes = specs.map((spec): FakeNode => ({
    engine: { state: 'stopped' },
    start: 'ok',
    describes: MODEL,
    ...spec,
  }));
  const fleetNodes = nodes.map((node) => daemonNode(node.name));
  const fake = (node: FleetNode): FakeNode => {
    const found = nodes.find((entry) => entry.name === node.name);
    if (found === undefined) {
      throw new Error(`no fake node ${node.name}`);
    }
    return found;
  };
  const starts: string[] = [];
  const asked: string[] = [];
  const stops: string[] = [];
  const driver: Pick<NodeDriver, 'status' | 'start' | 'wakeSource' | 'stop'> = {
    status: (node) => {
      asked.push(node.name);
      return Promise.resolve({ ok: true, value: statusOf(fake(node).engine) });
    },
    wakeSource: (node) =>
      Promise.resolve({
        source: `/fleet/${node.name}.svc`,
        config: configOf(fake(node).describes),
      }),
    start: (node): Promise<NodeReply<NodeStatus>> => {
      starts.push(node.name);
      const entry = fake(node);
      if (entry.start === 'conflict') {
        return Promise.resolve({
          ok: false,
          outcome: 'failed',
          status: 409,
          detail: 'an engine is already running',
        });
      }
      if (entry.start === 'refused') {
        return Promise.resolve({ ok: false, outcome: 'failed', status: 400, detail: 'no GPU' });
      }
      entry.engine = { state: 'loading', model: entry.describes };
      return Promise.resolve({ ok: true, value: statusOf(entry.engine) });
    },
    stop: (node) => {
      stops.push(node.name);
      return Promise.resolve({ ok: true, value: statusOf({ state: 'stopped' }) });
    },
  };
  const fleet: Fleet = { path: '/fleet/fleet.yaml', nodes: fleetNodes };
  const states = new NodeStates(fleetNodes, {
    ...NODE_STATES_DEFAULTS,
    client: driver,
    timeoutMs: 5_000,
    now: clock.now,
    sleep: clock.sleep,
  });
  const view = new FleetView(fleet, states, driver);
  const ended: string[] = [];
  const waker = new Waker(
    view,
    TIMEOUT_MS,
    createLogger('error', { write: () => undefined }),
    driver,
    { wakeEnded: (node, outcome) => ended.push(`${node}:${outcome}`) },
    {
      now: clock.now,
      sleep: clock.sleep,
      accepts: () => Promise.reject(new Error('no engine port is probed in these tests')),
    },
  );
  return {
    clock,
    waker,
    starts,
    asked,
    stops,
    ended,
    node: (name: string): FleetNode => fleetNodes.find((node) => node.name === name) as FleetNode,
    /** The snapshots a request routes from: every node as it answers now. */
    snapshots: (): NodeSnapshot[] =>
      fleetNodes.map((node) => ({ node, ok: true, status: statusOf(fake(node).engine) })),
    /** One node's snapshot as an earlier answer left it. */
    snapshotAs: (name: string, engine: Engine): NodeSnapshot => ({
      node: daemonNode(name),
      ok: true,
      status: statusOf(engine),
    }),
    engine: (name: string): Engine => fake(daemonNode(name)).engine,
    set: (name: string, engine: Engine): void => {
      fake(daemonNode(name)).engine = engine;
    },
  };
}

const nodeOf = (target: EngineTarget | undefined): string | undefined => target?.node.name;

describe('Waker', () => {
  it('starts a node once for every wake of it at the same time', async () => {
    const h = harness([{ name: 'a' }]);
    const requests = [1, 2, 3].map(() => track(h.waker.wakeNode(h.node('a'), MODEL)));
    await h.clock.advance(3 * POLL_MS);
    expect(h.starts).toEqual(['a']);
    expect(requests.some((request) => request.settled)).toBe(false);

    h.set('a', { state: 'ready', model: MODEL });
    await h.clock.advance(POLL_MS);
    expect(requests.map((request) => nodeOf(request.value))).toEqual(['a', 'a', 'a']);
    expect(h.starts).toEqual(['a']);
    expect(h.ended).toEqual(['a:ready']);
  });

  it('joins a wake that arrives mid-wake to the one under way: one poll per tick', async () => {
    const h = harness([{ name: 'a' }]);
    const first = track(h.waker.wakeNode(h.node('a'), MODEL));
    await h.clock.advance(5 * POLL_MS);
    expect(h.starts).toEqual(['a']);
    const late = track(h.waker.wakeNode(h.node('a'), MODEL));
    h.asked.length = 0;
    await h.clock.advance(3 * POLL_MS);
    expect(h.asked).toEqual(['a', 'a', 'a']);
    expect(h.starts).toEqual(['a']);

    h.set('a', { state: 'ready', model: MODEL });
    await h.clock.advance(POLL_MS);
    expect([first, late].map((request) => nodeOf(request.value))).toEqual(['a', 'a']);
    expect(h.starts).toEqual(['a']);
  });

  it('waits for a node someone else started (409) when it loads the model', async () => {
    const h = harness([{ name: 'b', start: 'conflict' }]);
    h.set('b', { state: 'loading', model: MODEL });
    const request = track(h.waker.wakeNode(h.node('b'), MODEL));
    await h.clock.advance(2 * POLL_MS);
    expect(h.starts).toEqual(['b']);

    h.set('b', { state: 'ready', model: MODEL });
    await h.clock.advance(POLL_MS);
    expect(nodeOf(request.value)).toBe('b');
    expect(h.starts).toEqual(['b']);
  });

  it('fails the wake when the node someone else started serves another model, or refuses', async () => {
    const h = harness([
      { name: 'a', start: 'conflict' },
      { name: 'b', start: 'refused' },
    ]);
    h.set('a', { state: 'loading', model: 'other' });
    const other = track(h.waker.wakeNode(h.node('a'), MODEL));
    const refused = track(h.waker.wakeNode(h.node('b'), MODEL));
    await h.clock.advance(POLL_MS);
    // The scheduler hears each failure and tries its next candidate (wakes.ts).
    expect((other.error as Error).message).toMatch(/node "a" is running other/);
    expect((refused.error as Error).message).toMatch(/start refused/);
    expect(h.ended.sort()).toEqual(['a:failed', 'b:failed']);
  });

  it('answers 504 at the wake timeout and leaves the engine loading', async () => {
    const h = harness([{ name: 'a' }]);
    const request = track(h.waker.wakeNode(h.node('a'), MODEL));
    await h.clock.advance(TIMEOUT_MS - 1);
    expect(request.settled).toBe(false);

    await h.clock.advance(1);
    expect(request.error).toBeInstanceOf(GatewayError);
    const error = request.error as GatewayError;
    expect(error.status).toBe(504);
    expect(error.code).toBe('wake_timeout');
    expect(error.message).toMatch(/node "a" did not answer within 10s.*left running/);
    expect(h.stops).toEqual([]);
    expect(h.engine('a')).toEqual({ state: 'loading', model: MODEL });
    expect(h.ended).toEqual(['a:timeout']);
  });
});
