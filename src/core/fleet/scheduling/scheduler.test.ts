/**
 * The scheduler's decisions for capacity and the queue (docs/design.md D25, spec §4.2 rules 3 and
 * 5), one rule per test, on an injected clock: slot accounting, FIFO, bounds, hang-up, affinity,
 * scale-out, and a wake being the same wait as the queue.
 */
import { describe, expect, it, vi } from 'vitest';

import {
  brief,
  dispatches,
  Harness,
  MODEL,
  running,
  stopped,
} from '../../../../test/support/scheduling/scheduling.ts';
import { Ledger } from './ledger.ts';

const TWO_NODES = { nodes: [{ name: 'a' }, { name: 'b' }] };

describe('slots', () => {
  it('spreads a burst over free slots, best-ranked first, and queues the rest', () => {
    const h = new Harness(TWO_NODES, [running('a', { slots: 2 }), running('b', { slots: 2 })]);
    const actions = [1, 2, 3, 4, 5].flatMap((id) => h.arrive(id));
    // Never-active nodes tie, so file order; then our own sends count as activity (prefer idle).
    expect(dispatches(actions)).toEqual(['1→a', '2→b', '3→a', '4→b']);
    expect(h.scheduler.waiting(5, h.now)).toEqual({ model: MODEL, position: 1, waitedMs: 0 });
    h.now = 700;
    expect(brief(h.end(3))).toEqual(['dispatch 5→a']);
    expect(h.log.at(-1)).toMatchObject({ kind: 'dispatch', waitedMs: 700 });
    expect(h.scheduler.inFlight('a')).toBe(2);
  });

  it('keeps a burst together under prefer: active', () => {
    const h = new Harness({ ...TWO_NODES, prefer: 'active' }, [
      running('a', { slots: 2 }),
      running('b', { slots: 2 }),
    ]);
    expect(dispatches([1, 2, 3].flatMap((id) => h.arrive(id)))).toEqual(['1→a', '2→a', '3→b']);
  });

  it('ranks a node others keep busy after one free, but never closes it for them', () => {
    const h = new Harness(TWO_NODES, [running('a', { slots: 2 }), running('b', { slots: 2 })]);
    h.arrive(1);
    // The refresh counts ours too: busy 2 with one of ours in flight means one is someone else's.
    h.now = 1;
    h.views(running('a', { slots: 2, busy: 2 }));
    // `a` is the less recently active, but full counting the other caller's: `b` comes first.
    expect(dispatches(h.arrive(2))).toEqual(['2→b']);
    expect(dispatches(h.arrive(3))).toEqual(['3→b']);
    // Both look full now; `a` still takes one of ours: the `busy` behind that may be seconds
    // old, and the engine queues any overlap itself.
    expect(dispatches(h.arrive(4))).toEqual(['4→a']);
    expect(dispatches(h.arrive(5))).toEqual([]);
  });

  it("does not read our own ended requests in an old scrape as someone else's", () => {
    const h = new Harness(TWO_NODES, [running('a', { slots: 2 })]);
    [1, 2].forEach((id) => h.arrive(id));
    h.end(1);
    h.end(2);
    // A scrape taken while both of ours ran, arriving after they ended: the node is free.
    h.now = 1;
    h.views(running('a', { slots: 2, busy: 2 }));
    expect(dispatches([3, 4].flatMap((id) => h.arrive(id)))).toEqual(['3→a', '4→a']);
  });

  it('never holds back a node with unknown slots', () => {
    const h = new Harness(TWO_NODES, [running('a')]);
    const actions = [1, 2, 3, 4, 5, 6].flatMap((id) => h.arrive(id));
    expect(dispatches(actions)).toHaveLength(6);
  });

  it('waits for a node that is loading instead of waking another (docs/design.md D13)', () => {
    const h = new Harness(TWO_NODES, [running('a', { ready: false }), stopped('b')]);
    expect(h.arrive(1)).toEqual([]);
    expect(h.scheduler.awaited()).toEqual(['a']);
    h.now = 1;
    expect(dispatches(h.views(running('a', { slots: 1 })))).toEqual(['1→a']);
    expect(h.scheduler.awaited()).toEqual([]);
  });

  it('ignores a view no newer than the one it holds: one delivered late is the delayed one', () => {
    const h = new Harness(TWO_NODES, [running('a', { slots: 1, observedAt: 10 })]);
    h.views(running('a', { state: 'stopped', serves: [], observedAt: 5 }));
    h.views(running('a', { state: 'stopped', serves: [], observedAt: 10 }));
    expect(dispatches(h.arrive(1))).toEqual(['1→a']);
  });
});

describe('the queue', () => {
  it('serves each model in arrival order, the longest-waiting model first', () => {
    const h = new Harness(TWO_NODES, [running('a', { slots: 1, serves: [MODEL, 'org/chat'] })]);
    h.arrive(1);
    h.arrive(2);
    h.now = 1;
    h.arrive(3, { model: 'org/chat' });
    h.now = 2;
    h.arrive(4);
    expect(dispatches([...h.end(1), ...h.end(2), ...h.end(3), ...h.end(4)])).toEqual([
      '2→a',
      '3→a',
      '4→a',
    ]);
  });

  it('refuses past its bound with a Retry-After from the rate slots free at', () => {
    const h = new Harness({ ...TWO_NODES, queue: { max: 2 } }, [running('a', { slots: 1 })]);
    // One slot freeing every second for ten seconds.
    for (let id = 1; id <= 10; id += 1) {
      h.arrive(id);
      h.now += 1_000;
      h.end(id);
    }
    h.arrive(11);
    h.arrive(12);
    h.arrive(13);
    expect(brief(h.arrive(14))).toEqual(['reject 14 queue_full 3s']);
    // A model's own bound wins over the fleet's.
    const own = new Harness(
      { ...TWO_NODES, queue: { max: 2 }, queueByModel: new Map([[MODEL, { max: 0 }]]) },
      [running('a', { slots: 1 })],
    );
    own.arrive(1);
    // Nothing has freed yet: the fallback.
    expect(brief(own.arrive(2))).toEqual(['reject 2 queue_full 5s']);
  });

  it('bounds only the wait for a slot: a request for a stopped model waits for its wake', () => {
    // docs/design.md D33: `queue.max: 0` refuses what no free slot takes now, never a wake's wait.
    const h = new Harness({ ...TWO_NODES, queue: { max: 0 } }, [stopped('a')]);
    expect(brief(h.arrive(1))).toEqual([`wake a ${MODEL} (demand)`]);
    expect(h.arrive(2)).toEqual([]);
    expect(brief(h.wakeReady(running('a', { slots: 1 })))).toEqual(['dispatch 1→a']);
    // Now a ready node serves it: the one still waiting has its slot next, a newcomer is refused.
    expect(brief(h.arrive(3))).toEqual(['reject 3 queue_full 5s']);
    expect(brief(h.end(1))).toEqual(['dispatch 2→a']);
  });

  it('refuses a request that waited past the timeout, and says when that is due', () => {
    const h = new Harness({ ...TWO_NODES, queue: { timeoutMs: 10_000 } }, [
      running('a', { slots: 1 }),
    ]);
    h.arrive(1);
    h.now = 4_000;
    h.arrive(2);
    h.now = 6_000;
    h.arrive(3);
    expect(h.scheduler.nextDueAt(h.now)).toBe(14_000);
    expect(h.advance(7_999)).toEqual([]);
    expect(brief(h.advance(1))).toEqual(['reject 2 queue_timeout 5s']);
    expect(h.scheduler.nextDueAt(h.now)).toBe(16_000);
  });

  it('builds no refusal inputs while the oldest waiting is in time', () => {
    const h = new Harness({ ...TWO_NODES, queue: { timeoutMs: 10_000 } }, [
      running('a', { slots: 1 }),
    ]);
    [1, 2, 3].forEach((id) => h.arrive(id));
    // The refusal's Retry-After reads the rate slots free at: asked only when a wait ran out.
    const rate = vi.spyOn(Ledger.prototype, 'rateFor');
    h.now = 9_999;
    expect(h.advance(0)).toEqual([]);
    expect(rate).not.toHaveBeenCalled();
    expect(brief(h.advance(1))).toEqual(['reject 2 queue_timeout 5s', 'reject 3 queue_timeout 5s']);
    expect(rate).toHaveBeenCalled();
    rate.mockRestore();
  });

  it('lets a caller that hangs up leave at once, wherever it stands', () => {
    const h = new Harness(TWO_NODES, [running('a', { slots: 1 })]);
    [1, 2, 3, 4].forEach((id) => h.arrive(id));
    expect(h.end(3)).toEqual([]);
    expect(h.scheduler.waiting(4, h.now)?.position).toBe(2);
    expect(h.scheduler.queued()).toEqual(new Map([[MODEL, 2]]));
    expect(h.scheduler.queuedFor('a')).toBe(2);
    expect(dispatches([...h.end(1), ...h.end(2)])).toEqual(['2→a', '4→a']);
  });
});

describe('prompt-cache affinity', () => {
  it('sends a known prompt back to its node while that node has a free slot', () => {
    const h = new Harness(TWO_NODES, [running('a', { slots: 1 }), running('b', { slots: 2 })]);
    h.arrive(1);
    expect(dispatches(h.arrive(2, { affinity: 'k' }))).toEqual(['2→b']);
    h.end(1);
    h.end(2);
    h.now = 1;
    // b is the more recently active, yet the prompt goes back to it.
    expect(dispatches(h.arrive(3, { affinity: 'k' }))).toEqual(['3→b']);
    expect(dispatches(h.arrive(4, { affinity: 'k' }))).toEqual(['4→b']);
    // b is full: the prompt goes elsewhere, and is remembered there.
    expect(dispatches(h.arrive(5, { affinity: 'k' }))).toEqual(['5→a']);
    h.end(5);
    h.end(4);
    expect(dispatches(h.arrive(6, { affinity: 'k' }))).toEqual(['6→a']);
  });

  it('is off with its setting', () => {
    const h = new Harness({ ...TWO_NODES, affinity: false }, [running('a'), running('b')]);
    h.arrive(1);
    h.now = 1;
    h.arrive(2, { affinity: 'k' });
    h.now = 2;
    expect(dispatches(h.arrive(3, { affinity: 'k' }))).toEqual(['3→a']);
  });
});

describe('waking and scale-out', () => {
  it('wakes one node for a cold model, holds the requests in the queue, then drains them', () => {
    const h = new Harness(TWO_NODES, [stopped('a'), stopped('b', { warm: true })]);
    expect(brief(h.arrive(1, { streaming: true }))).toEqual([`wake b ${MODEL} (demand)`]);
    expect(h.arrive(2)).toEqual([]);
    h.now = 3_000;
    expect(h.scheduler.waiting(1, h.now)).toEqual({ model: MODEL, position: 1, waitedMs: 3_000 });
    expect(brief(h.wakeReady(running('b', { slots: 4 })))).toEqual([
      'dispatch 1→b',
      'dispatch 2→b',
    ]);
  });

  it('waits for a node another gateway is stopping, then wakes it once it has stopped', () => {
    // Its own status says stopping: not our stop, but one that ends as ours do.
    const h = new Harness({ nodes: [{ name: 'a' }] }, [
      running('a', { state: 'stopping', ready: false, wakes: [MODEL] }),
    ]);
    expect(brief(h.arrive(1))).toEqual([]);
    expect(h.scheduler.waiting(1, h.now)).toMatchObject({ model: MODEL });
    h.now = 1;
    expect(brief(h.views(stopped('a', { observedAt: 1 })))).toEqual([`wake a ${MODEL} (demand)`]);
  });

  it('tries the next candidate when a wake fails, then gives up naming the failures', () => {
    const h = new Harness(TWO_NODES, [stopped('a'), stopped('b')]);
    expect(brief(h.arrive(1))).toEqual([`wake a ${MODEL} (demand)`]);
    expect(brief(h.wakeFailed('a'))).toEqual([`wake b ${MODEL} (demand)`]);
    h.wakeFailed('b', 'no GPU');
    expect(h.log.at(-1)).toEqual({
      kind: 'reject',
      id: 1,
      model: MODEL,
      reason: 'wake_failed',
      waitedMs: 0,
      detail: {
        failures: [
          { node: 'a', detail: 'it crashed' },
          { node: 'b', detail: 'no GPU' },
        ],
      },
    });
  });

  it('refuses at once a model nothing serves or describes', () => {
    const h = new Harness(TWO_NODES, [running('a'), stopped('b', { wakes: ['other'] })]);
    expect(brief(h.arrive(1, { model: 'nope' }))).toEqual(['reject 1 no_node']);
  });

  it('bounds a wait for a wake by the wake timeout', () => {
    const h = new Harness({ ...TWO_NODES, wakeTimeoutMs: 60_000 }, [stopped('a')]);
    h.arrive(1);
    expect(h.scheduler.nextDueAt(h.now)).toBe(60_000);
    expect(h.advance(60_000)).toEqual([
      {
        kind: 'reject',
        id: 1,
        model: MODEL,
        reason: 'wake_timeout',
        retryAfterSeconds: 30,
        waitedMs: 60_000,
        detail: { waitingFor: 'a' },
      },
    ]);
  });

  it('starts one more node for load when scale-out allows it, one at a time', () => {
    const nodes = [{ name: 'a' }, { name: 'b', scaleOut: true }, { name: 'c', scaleOut: true }];
    const views = [running('a', { slots: 1 }), stopped('b'), stopped('c')];
    const h = new Harness({ nodes }, views);
    h.arrive(1);
    expect(brief(h.arrive(2))).toEqual([`wake b ${MODEL} (scale-out)`]);
    expect(h.arrive(3)).toEqual([]);
    // A wake and a queue are one wait: a slot freeing on a goes to the head before b is ready.
    expect(dispatches(h.end(1))).toEqual(['2→a']);
    expect(dispatches(h.wakeReady(running('b', { slots: 1 })))).toEqual(['3→b']);
    const off = new Harness({ nodes: [{ name: 'a' }, { name: 'b' }] }, views.slice(0, 2));
    off.arrive(1);
    expect(off.arrive(2)).toEqual([]);
  });
});
