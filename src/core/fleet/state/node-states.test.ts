/**
 * The fleet state holder and the view requests read it through: background refresh while in use
 * (each node at most once per period, nothing while idle), a bound on calls in flight, and
 * requests that wait only for the nodes that matter to them, never for a node that hangs.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../../test/support/project-files/fleet-node.ts';
import type { StatusResponse } from '../../contract/schemas.ts';
import { fleetDriver } from '../drivers/by-kind.ts';
import type { NodeReply } from '../drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../file/fleet-file.ts';
import type { NodeStatesOptions } from './node-snapshot.ts';
import { FleetView } from './node-snapshots.ts';
import { NodeStates } from './node-states.ts';

const OPTIONS = {
  refreshMs: 2_000,
  staleMs: 15_000,
  idleAfterMs: 30_000,
  timeoutMs: 5_000,
  concurrency: 4,
  tickMs: 250,
  maxStatusPerSecond: 1_000,
};

const node = (name: string): FleetNode => daemonNode(name);

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
function harness(
  names: readonly string[],
  models: Record<string, string>,
  overrides: Partial<NodeStatesOptions> = {},
  /** How late every sleep ends (a busy event loop). */
  lateMs = 0,
) {
  let time = 0;
  const sleepers: { until: number; resolve: () => void }[] = [];
  const asked: string[] = [];
  const hung: ((reply: NodeReply<StatusResponse>) => void)[] = [];
  let inFlight = 0;
  let peak = 0;
  const nodes = names.map(node);
  const options: NodeStatesOptions = {
    ...OPTIONS,
    ...overrides,
    now: () => time,
    sleep: (ms) =>
      new Promise((resolve) => {
        sleepers.push({ until: time + ms + lateMs, resolve });
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
  const view = new FleetView(
    fleet,
    states,
    fleetDriver({ fleet, configDir: '/nonexistent', env: {} }),
  );
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
    // One node per tick here (3 nodes × 250 ms / 2 s, rounded up): the first round is spread.
    await test.advance(1_750);
    expect(test.asked).toEqual(['a', 'b', 'c']);
    await test.advance(2_000);
    expect(test.asked).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    // 30 s idle after the last use: at most one call per node per 2 s, then silence.
    await test.advance(40_000);
    const whileUsed = test.asked.length;
    expect(whileUsed).toBeLessThanOrEqual(3 * (1 + 32_000 / 2_000));
    await test.advance(60_000);
    expect(test.asked).toHaveLength(whileUsed);
    // Used again: the loop starts again.
    test.states.use();
    await flush();
    expect(test.asked.length).toBe(whileUsed + 1);
  });

  it('spreads the refresh evenly: each tick asks only its share of the fleet', async () => {
    const names = Array.from({ length: 40 }, (_, index) => `n${index}`);
    const test = harness(names, Object.fromEntries(names.map((name) => [name, 'm'])));
    test.states.use();
    await flush();
    const perTick: number[] = [test.asked.length];
    for (let tick = 0; tick < 40; tick += 1) {
      const before = test.asked.length;
      await test.advance(250);
      perTick.push(test.asked.length - before);
    }
    // 40 nodes × 250 ms / 2 s = 5 a tick, never the whole fleet at once.
    expect(Math.max(...perTick)).toBe(5);
    // 10 s of use: every node asked, none more than once per 2 s.
    const counts = new Map<string, number>();
    test.asked.forEach((name) => counts.set(name, (counts.get(name) ?? 0) + 1));
    expect(counts.size).toBe(40);
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(1 + 10_000 / 2_000);
  });

  it('keeps the rate of N per period when its sleeps end late', async () => {
    const names = Array.from({ length: 40 }, (_, index) => `n${index}`);
    // Every 250 ms sleep ends 250 ms late: counted by ticks, half the fleet's share would be asked.
    const test = harness(names, Object.fromEntries(names.map((name) => [name, 'm'])), {}, 250);
    test.states.use();
    await flush();
    const perTick: number[] = [test.asked.length];
    for (let tick = 0; tick < 20; tick += 1) {
      const before = test.asked.length;
      await test.advance(500);
      perTick.push(test.asked.length - before);
    }
    // 10 s of use at 40 nodes per 2 s: 200 calls less the first round's spread, not 100.
    expect(test.asked.length).toBeGreaterThanOrEqual(180);
    expect(Math.max(...perTick)).toBeLessThanOrEqual(10);
    const counts = new Map<string, number>();
    test.asked.forEach((name) => counts.set(name, (counts.get(name) ?? 0) + 1));
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(1 + 10_000 / 2_000);
  });

  it('stretches the period for a large fleet, but keeps routed-to nodes at the short one', async () => {
    const names = Array.from({ length: 200 }, (_, index) => `n${index}`);
    const models = Object.fromEntries(names.map((name, index) => [name, `model-${index}`]));
    // 200 nodes at 20 calls/s: a 10 s period, and a stale bound past two periods plus a timeout.
    const test = harness(names, models, { maxStatusPerSecond: 20 });
    expect(test.states.periodMs).toBe(10_000);
    expect(test.states.staleMs).toBe(25_000);
    // A cold request: all 200 asked at once (the request path is not rate-limited) until one
    // serves model-150.
    const snapshots = await test.view.forModel('model-150');
    expect(test.view.decide('model-150', snapshots).kind).toBe('serve');
    await flush();
    const cold = test.asked.length;
    // Steady use for 20 s, routed to n150 each second.
    for (let second = 0; second < 20; second += 1) {
      await test.view.forModel('model-150');
      await test.advance(1_000);
    }
    const background = test.asked.slice(cold);
    const count = (name: string): number => background.filter((entry) => entry === name).length;
    // At most 20 calls a second over the fleet, plus the hot node's own.
    expect(background.length).toBeLessThanOrEqual(20 * 20 + 11);
    expect(count('n150')).toBeGreaterThanOrEqual(9);
    expect(Math.max(...names.filter((name) => name !== 'n150').map(count))).toBeLessThanOrEqual(2);
  });

  it('never has more calls in flight than its concurrency bound', async () => {
    const names = Array.from({ length: 40 }, (_, index) => `n${index}`);
    const test = harness(names, Object.fromEntries(names.map((name) => [name, 'hang'])));
    // A cold /v1/fleet asks all 40 at once, through the bound.
    const all = test.view.all();
    await flush();
    expect(test.peak()).toBe(4);
    expect(test.asked).toHaveLength(4);
    for (let round = 0; round < 20; round += 1) {
      test.timeOut();
      await flush();
    }
    expect((await all).map((entry) => (entry.ok ? 'ok' : entry.outcome))).toEqual(
      Array(40).fill('unreachable'),
    );
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
