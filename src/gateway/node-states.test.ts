/**
 * The fleet state holder and the view requests read it through: background refresh while in use
 * (each node at most once per period, nothing while idle), a bound on calls in flight, and
 * requests that wait only for the nodes that matter to them, never for a node that hangs.
 */
import { describe, expect, it } from 'vitest';

import type { StatusResponse } from '../core/contract/schemas.ts';
import type { Fleet, FleetNode } from './fleet-file.ts';
import type { NodeReply } from './node-client.ts';
import { FleetView } from './node-snapshots.ts';
import { NodeStates, type NodeStatesOptions } from './node-states.ts';

const OPTIONS = {
  refreshMs: 2_000,
  staleMs: 15_000,
  idleAfterMs: 30_000,
  timeoutMs: 5_000,
  concurrency: 4,
  tickMs: 250,
};

function node(name: string): FleetNode {
  return { name, kind: 'daemon', host: '127.0.0.1', port: 4242, wake: 'on', ownWake: false };
}

const running = (model: string): StatusResponse => ({
  state: 'running',
  runner: 'llamacpp',
  model,
  engine: { port: 8080 },
  ready: 'ready',
  version: 'dev',
});

const flush = async (): Promise<void> => {
  for (let round = 0; round < 5; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
};

/** A fake fleet: each node answers at once with `models[name]`, or hangs until `release`. */
function harness(names: readonly string[], models: Record<string, string>) {
  let time = 0;
  const sleepers: { until: number; resolve: () => void }[] = [];
  const asked: string[] = [];
  const hung: ((reply: NodeReply<StatusResponse>) => void)[] = [];
  let inFlight = 0;
  let peak = 0;
  const nodes = names.map(node);
  const options: NodeStatesOptions = {
    ...OPTIONS,
    now: () => time,
    sleep: (ms) =>
      new Promise((resolve) => {
        sleepers.push({ until: time + ms, resolve });
      }),
    client: {
      status: async (target) => {
        asked.push(target.name);
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        try {
          const model = models[target.name] ?? 'hang';
          if (model === 'hang') {
            return await new Promise<NodeReply<StatusResponse>>((resolve) => hung.push(resolve));
          }
          return { ok: true, value: running(model) };
        } finally {
          inFlight -= 1;
        }
      },
    },
  };
  const states = new NodeStates(nodes, options);
  const fleet: Fleet = { path: 'fleet.yaml', nodes };
  const view = new FleetView(fleet, states, { configDir: '/nonexistent', env: {} });
  return {
    states,
    view,
    asked,
    peak: () => peak,
    /** Moves the clock on, waking the loop's sleeps that are due. */
    async advance(ms: number) {
      const end = time + ms;
      while (time < end) {
        time = Math.min(end, time + OPTIONS.tickMs);
        for (const sleeper of sleepers.splice(0)) {
          if (sleeper.until <= time) {
            sleeper.resolve();
          } else {
            sleepers.push(sleeper);
          }
        }
        await flush();
      }
    },
    /** The hung calls time out (as the client's own timeout would end them). */
    timeOut() {
      for (const resolve of hung.splice(0)) {
        resolve({ ok: false, outcome: 'unreachable', detail: 'timed out' });
      }
    },
  };
}

describe('NodeStates', () => {
  it('asks every node once per refresh period while in use, and nothing once idle', async () => {
    const test = harness(['a', 'b', 'c'], { a: 'm', b: 'm', c: 'n' });
    test.states.use();
    await flush();
    expect(test.asked.sort()).toEqual(['a', 'b', 'c']);
    await test.advance(1_750);
    expect(test.asked).toHaveLength(3);
    await test.advance(250);
    expect(test.asked).toHaveLength(6);
    // 30 s idle after the last use: at most one call per node per 2 s, then silence.
    await test.advance(40_000);
    const whileUsed = test.asked.length;
    expect(whileUsed).toBeLessThanOrEqual(3 * (1 + 32_000 / 2_000));
    await test.advance(60_000);
    expect(test.asked).toHaveLength(whileUsed);
    // Used again: the loop starts again.
    test.states.use();
    await flush();
    expect(test.asked.length).toBe(whileUsed + 3);
  });

  it('never has more calls in flight than its concurrency bound', async () => {
    const names = Array.from({ length: 40 }, (_, index) => `n${index}`);
    const test = harness(names, Object.fromEntries(names.map((name) => [name, 'hang'])));
    test.states.use();
    await flush();
    expect(test.peak()).toBe(4);
    expect(test.asked).toHaveLength(4);
    for (let round = 0; round < 10; round += 1) {
      test.timeOut();
      await flush();
    }
    expect(test.peak()).toBe(4);
    expect(new Set(test.asked).size).toBe(40);
  });

  it('routes from known snapshots at once and leaves a hung node out of the decision', async () => {
    const test = harness(['hung', 'good'], { hung: 'hang', good: 'm' });
    test.states.use();
    await flush();
    // "hung" has not answered (its call waits on its timeout); "good" serves m.
    const snapshots = await test.view.forModel('m');
    expect(snapshots.map((entry) => entry.node.name)).toEqual(['good']);
    expect(test.view.decide('m', snapshots).kind).toBe('serve');
  });

  it('with nothing known, a request waits only until a node serving its model answers', async () => {
    const test = harness(['hung', 'good'], { hung: 'hang', good: 'm' });
    // No use() before: the request itself finds nothing known.
    const snapshots = await test.view.forModel('m');
    expect(test.view.decide('m', snapshots).kind).toBe('serve');
  });

  it('a model nothing fresh serves waits for the unanswered nodes, then marks the hung one', async () => {
    const test = harness(['hung', 'good'], { hung: 'hang', good: 'm' });
    let settled = false;
    const pending = test.view.forModel('other').then((snapshots) => {
      settled = true;
      return snapshots;
    });
    await flush();
    expect(settled).toBe(false);
    test.timeOut();
    const snapshots = await pending;
    expect(snapshots.map((entry) => (entry.ok ? entry.node.name : entry.outcome))).toEqual([
      'unreachable',
      'good',
    ]);
  });

  it('does not route from a snapshot past the stale bound: the node is asked first', async () => {
    const test = harness(['good'], { good: 'm' });
    test.states.use();
    await flush();
    expect(test.states.current().pending).toEqual([]);
    // Idle (the loop stops), then past the stale bound.
    await test.advance(50_000);
    const before = test.asked.length;
    expect(test.states.current().pending.map((entry) => entry.name)).toEqual(['good']);
    const snapshots = await test.view.forModel('m');
    expect(test.asked.length).toBeGreaterThan(before);
    expect(test.view.decide('m', snapshots).kind).toBe('serve');
  });

  it('keeps the later of two answers (a wake poll beats an older background call)', async () => {
    const test = harness(['hung'], { hung: 'hang' });
    test.states.use();
    await flush();
    const target = node('hung');
    test.states.record({ node: target, ok: true, status: running('m') }, 100);
    test.timeOut();
    await flush();
    const last = test.states.last(target);
    expect(last?.ok).toBe(true);
  });

  it('/v1/fleet-style reads wait for nodes not yet known and list every node', async () => {
    const test = harness(['a', 'b'], { a: 'm', b: 'n' });
    const all = await test.view.all();
    expect(all.map((entry) => entry.node.name)).toEqual(['a', 'b']);
    // Warm: answered from what is held, no new call.
    const before = test.asked.length;
    await test.view.all();
    expect(test.asked.length).toBe(before);
  });
});
