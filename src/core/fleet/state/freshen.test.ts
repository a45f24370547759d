/**
 * What a request the scheduler cannot place at once waits for (freshen.ts, docs/design.md D33): the
 * nodes without a fresh snapshot, returning as soon as one lets the scheduler place it, never a
 * node that hangs when another serves; and a node marked unreachable is asked again before a
 * refusal is made because of it (a gateway's first round may find a daemon not yet listening).
 */
import { describe, expect, it } from 'vitest';

import { flush, harness, node } from '../../../../test/support/scheduling/node-states-harness.ts';
import { freshen } from './freshen.ts';

describe('freshen', () => {
  it('places from known snapshots at once, a hung node left out of the decision', async () => {
    const test = harness(['hung', 'good'], { hung: 'hang', good: 'm' });
    test.states.use();
    await test.advance(500);
    // "hung" has not answered (its call waits on its timeout); "good" serves m.
    expect(test.asked).toEqual(['hung', 'good']);
    expect(test.scheduler.placeable('m')).toBe(true);
    expect(await test.forModel('m')).toBe(true);
  });

  it('with nothing known, a request waits only until a node serving its model answers', async () => {
    const test = harness(['hung', 'good'], { hung: 'hang', good: 'm' });
    // No use() before: the request itself finds nothing known.
    expect(await test.forModel('m')).toBe(true);
  });

  it('a model nothing fresh serves waits for the unanswered nodes, then marks the hung one', async () => {
    const test = harness(['hung', 'good'], { hung: 'hang', good: 'm' });
    let settled = false;
    const pending = test.forModel('other').then((placeable) => {
      settled = true;
      return placeable;
    });
    await flush();
    expect(settled).toBe(false);
    test.timeOut();
    await flush();
    // Marked unreachable, "hung" is asked once more before a refusal is made for it.
    expect(settled).toBe(false);
    test.timeOut();
    expect(await pending).toBe(false);
    expect(
      test.states.current().snapshots.map((entry) => (entry.ok ? entry.node.name : entry.outcome)),
    ).toEqual(['unreachable', 'good']);
  });

  it('asks a node marked unreachable again before refusing for it (a daemon not yet listening)', async () => {
    // The gateway's first round found "late" not listening; it answers by the first request.
    const models: Record<string, string> = { late: 'down' };
    const test = harness(['late'], models);
    test.states.use();
    await flush();
    expect(test.states.last(node('late'))?.ok).toBe(false);
    expect(test.states.current().pending).toEqual([]);
    models['late'] = 'm';
    await test.advance(250);
    const before = test.asked.length;
    expect(await test.forModel('m')).toBe(true);
    expect(test.asked.length).toBe(before + 1);
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
    expect(await test.forModel('m')).toBe(true);
    expect(test.asked.length).toBeGreaterThan(before);
  });

  it('works out no route while others wait for the model: a node was found for them', async () => {
    let routes = 0;
    const scheduler = {
      placeable: () => false,
      waitingCount: () => 2,
      route: () => {
        routes += 1;
        throw new Error('not asked');
      },
    };
    const states = { current: () => ({ snapshots: [], pending: [] }), last: () => undefined };
    const deps = { states, scheduler, settled: () => Promise.resolve(), now: () => 0 };
    await freshen(deps as unknown as Parameters<typeof freshen>[0], 'm');
    expect(routes).toBe(0);
  });
});
