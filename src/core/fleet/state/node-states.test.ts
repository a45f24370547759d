/**
 * The fleet state holder and the view requests read it through: background refresh while in use
 * (each node at most once per period, nothing while idle), a bound on calls in flight, and
 * requests that wait only for the nodes that matter to them, never for a node that hangs.
 */
import { describe, expect, it } from 'vitest';

import {
  flush,
  harness,
  node,
  running,
} from '../../../../test/support/scheduling/node-states-harness.ts';
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
    expect(await test.forModel('model-150')).toBe(true);
    await flush();
    const cold = test.asked.length;
    // Steady use for 20 s, sent to n150 each second.
    for (let second = 0; second < 20; second += 1) {
      await test.forModel('model-150');
      test.states.routedTo('n150');
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
