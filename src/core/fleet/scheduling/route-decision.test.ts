/**
 * docs/design.md D33: the route a caller is told (`GET /v1/fleet/route`, `svc fleet route`) is what
 * the gateway then does. Each case asks the scheduler's read-only `route`, checks that asking
 * changed nothing, then lets the same request arrive over the same state and finds the same
 * decision: a free slot, a full node (queue), a wake, one already coming, a swap (and who it
 * stops), a full queue and a refusal. A property does the same over random fleets. These fleets
 * have no upstream node, so never a `fallback` (route-upstream.test.ts, docs/design.md D30).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  brief,
  Harness,
  MODEL,
  running,
  stopped,
} from '../../../../test/support/scheduling/scheduling.ts';
import type { RouteDecision } from './route-decision.ts';
import type { NodeView } from './types.ts';

/** What the arrival of request `id` for `model` did, in the route's terms. */
function didWith(
  h: Harness,
  id: number,
  model: string,
): Pick<RouteDecision, 'action' | 'node' | 'stops'> {
  const actions = brief(h.arrive(id, { model }));
  const waiting = h.scheduler.waiting(id, h.now) !== undefined;
  const [first] = actions;
  if (first?.startsWith('dispatch ') === true) {
    return { action: 'serve', node: first.split('→')[1] ?? '', stops: [] };
  }
  if (first?.startsWith('reject ') === true) {
    return { action: 'refuse', stops: [] };
  }
  if (first?.startsWith('stop ') === true && waiting) {
    return { action: 'swap', stops: actions.map((line) => line.split(' ')[1] ?? '') };
  }
  if (first?.startsWith('wake ') === true && waiting) {
    return { action: 'wake', node: first.split(' ')[1] ?? '', stops: [] };
  }
  expect(actions).toEqual([]);
  expect(waiting).toBe(true);
  return { action: 'queue', stops: [] };
}

/** Asks the route, checks asking changed nothing, arrives the request, and compares. */
function agrees(h: Harness, model = MODEL, id = 1000): RouteDecision {
  const waiting = h.scheduler.waitingCount();
  const due = h.scheduler.nextDueAt(h.now);
  const decision = h.scheduler.route(model, h.now);
  // Asking changed nothing: the same answer again, nothing queued, no timer moved.
  expect(h.scheduler.route(model, h.now)).toEqual(decision);
  expect(h.scheduler.waitingCount()).toBe(waiting);
  expect(h.scheduler.nextDueAt(h.now)).toBe(due);
  const did = didWith(h, id, model);
  expect(decision.action).not.toBe('fallback');
  if (decision.action === 'serve' || decision.action === 'refuse') {
    expect(did).toEqual({
      action: decision.action,
      stops: [],
      ...(decision.action === 'serve' ? { node: decision.node } : {}),
    });
  } else if (decision.action === 'swap') {
    expect(did).toEqual({ action: 'swap', stops: decision.stops });
  } else if (decision.action === 'wake') {
    // A wake already under way (or a node loading) is waited for: no second wake.
    const coming = decision.nodes.some(
      (node) =>
        node.name === decision.node &&
        (node.verdict === 'waking' || node.verdict === 'loading' || node.verdict === 'stopping'),
    );
    expect(did).toEqual(
      coming ? { action: 'queue', stops: [] } : { action: 'wake', node: decision.node, stops: [] },
    );
  } else {
    expect(did).toEqual({ action: 'queue', stops: [] });
  }
  return decision;
}

const TWO = { nodes: [{ name: 'a' }, { name: 'b' }] };

/** A group of one: a runs model-a (past its residency), b is stopped and would start model-b. */
function gpuPair(): Harness {
  return new Harness(
    {
      nodes: ['a', 'b'].map((name) => ({ name, group: 'gpu' })),
      groups: new Map([['gpu', { max: 1, minResidencyMs: 0 }]]),
    },
    [
      running('a', { serves: ['model-a'], wakes: ['model-a'], runningSince: -1 }),
      stopped('b', { wakes: ['model-b'] }),
    ],
  );
}

describe('route and arrival agree', () => {
  it('serve: the node with a free slot, the one the request is sent to', () => {
    const h = new Harness(TWO, [running('a', { slots: 1 }), running('b', { slots: 1 })]);
    h.arrive(1);
    const decision = agrees(h);
    expect(decision).toMatchObject({ action: 'serve', node: 'b', stops: [] });
    expect(decision.nodes.map(({ name, verdict }) => [name, verdict])).toEqual([
      ['a', 'full'],
      ['b', 'serve'],
    ]);
  });

  it('queue: every slot full, the request waits; the queue is counted', () => {
    const h = new Harness(TWO, [running('a', { slots: 1 }), stopped('b', { wakes: ['other'] })]);
    h.arrive(1);
    h.arrive(2);
    const decision = agrees(h);
    expect(decision).toMatchObject({ action: 'queue', queued: 1 });
    expect(decision.nodes[0]).toMatchObject({ name: 'a', verdict: 'full' });
  });

  it('wake: nothing serves the model, the first candidate is started', () => {
    const h = new Harness(TWO, [stopped('a', { wakes: ['other'] }), stopped('b')]);
    const decision = agrees(h);
    expect(decision).toMatchObject({ action: 'wake', node: 'b' });
    expect(decision.nodes[0]).toMatchObject({ name: 'a', verdict: 'other' });
    // The wake is now under way: the next request waits for it, and the route says so.
    expect(agrees(h, MODEL, 1001)).toMatchObject({ action: 'wake', node: 'b' });
  });

  it('swap: a full group stops its idle member first, and names it', () => {
    const h = gpuPair();
    const decision = agrees(h, 'model-b');
    expect(decision).toMatchObject({ action: 'swap', node: 'b', stops: ['a'] });
    expect(decision.nodes.map(({ name, verdict }) => [name, verdict])).toEqual([
      ['a', 'stop'],
      ['b', 'wake'],
    ]);
  });

  it('queue behind a group held by a busy member, naming it', () => {
    const h = gpuPair();
    h.arrive(1, { model: 'model-a' });
    const decision = agrees(h, 'model-b');
    expect(decision.action).toBe('queue');
    expect(decision.reason).toContain('held by "a": it has 1 request in flight');
    expect(decision.nodes[0]).toMatchObject({ name: 'a', verdict: 'holds' });
  });

  it('refuse: a full queue, and a model nothing may serve', () => {
    const h = new Harness({ ...TWO, queue: { max: 1 } }, [running('a', { slots: 1 })]);
    h.arrive(1);
    h.arrive(2);
    expect(agrees(h)).toMatchObject({ action: 'refuse', refusal: 'queue_full' });
    const none = agrees(h, 'unknown', 1001);
    expect(none).toMatchObject({ action: 'refuse', refusal: 'no_node' });
  });

  it('names a loopback-only engine, a wake-off node and a silent one in its verdicts', () => {
    const h = new Harness({ nodes: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }, [
      running('a', { serves: [], unusable: 'node "a" has its engine bound to loopback' }),
      stopped('b', { wakes: [], wakeOff: [MODEL] }),
      {
        name: 'c',
        observedAt: 0,
        state: 'unreachable',
        ready: false,
        serves: [],
        detail: 'ECONNREFUSED',
      },
    ]);
    const decision = agrees(h);
    expect(decision.nodes.map(({ name, verdict }) => [name, verdict])).toEqual([
      ['a', 'unusable'],
      ['b', 'wake-off'],
      ['c', 'unreachable'],
    ]);
  });
});

describe('route and arrival agree over random fleets', () => {
  const view = fc.record({
    kind: fc.constantFrom('running', 'loading', 'stopped', 'unreachable'),
    model: fc.constantFrom('m1', 'm2'),
    slots: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }),
  });
  it('for any views, requests already in, and group', () => {
    fc.assert(
      fc.property(
        fc.array(view, { minLength: 1, maxLength: 4 }),
        fc.array(fc.constantFrom('m1', 'm2'), { maxLength: 5 }),
        fc.boolean(),
        fc.constantFrom('m1', 'm2'),
        (views, earlier, grouped, model) => {
          const names = views.map((_, index) => `n${index}`);
          const h = new Harness(
            {
              nodes: names.map((name) => ({ name, ...(grouped ? { group: 'gpu' } : {}) })),
              groups: new Map(grouped ? [['gpu', { max: 1, minResidencyMs: 0 }]] : []),
              queue: { max: 2 },
            },
            views.map((entry, index): NodeView => {
              const name = names[index] ?? '';
              const slots = entry.slots === undefined ? {} : { slots: entry.slots };
              switch (entry.kind) {
                case 'running':
                  return running(name, { serves: [entry.model], runningSince: -1, ...slots });
                case 'loading':
                  return running(name, { serves: [entry.model], ready: false });
                case 'stopped':
                  return stopped(name, { wakes: [entry.model] });
                default:
                  return { name, observedAt: 0, state: 'unreachable', ready: false, serves: [] };
              }
            }),
          );
          earlier.forEach((wanted, index) => h.arrive(index + 1, { model: wanted }));
          agrees(h, model);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('a model whose node is being stopped', () => {
  it('waits for the stop and the wake after it rather than being refused', () => {
    const h = gpuPair();
    // model-b swaps a out; a request for model-a arrives while a's stop is under way.
    expect(brief(h.arrive(1, { model: 'model-b' }))).toEqual(['stop a (swap)']);
    expect(agrees(h, 'model-a', 2)).toMatchObject({ action: 'wake', node: 'a' });
    expect(h.scheduler.waiting(2, h.now)).toMatchObject({ model: 'model-a' });
  });
});
