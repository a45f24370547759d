/**
 * docs/design.md D30: a waking fallback's wake still starts, also after the node it woke was
 * stopped while the gateway still waited for it to load (its wake failed, and the view saying so
 * was asked before the failure was told), or while a request rode on that wake: the request the
 * fallback answered is owed the wake, which starts once a view settles the node, with no request
 * waiting in the queue.
 */
import { describe, expect, it } from 'vitest';

import {
  brief,
  Harness,
  hostedView,
  MODEL,
  running,
  stopped,
} from '../../../../../test/support/scheduling/scheduling.ts';

function fleet() {
  return {
    nodes: [{ name: 'gpu' }, { name: 'hosted', upstream: [MODEL] }],
    fallbacks: new Map([[MODEL, { to: 'hosted' as const, when: ['waking' as const] }]]),
  };
}

function woken(): Harness {
  const h = new Harness(fleet(), [stopped('gpu'), hostedView]);
  expect(brief(h.arrive(1))).toEqual(['dispatch 1→hosted', `wake gpu ${MODEL} (demand)`]);
  h.now += 10;
  h.end(1);
  h.now += 1_000;
  h.views(running('gpu', { ready: false }));
  // Stopped (by its daemon, or the gateway's stop) just as it became ready: the wake's last ask
  // saw it stopped, and that view reaches the scheduler after the failure, dated before it.
  h.now += 100;
  h.wakeFailed('gpu', `node "gpu" was stopped while it was starting ${MODEL}`);
  h.views(stopped('gpu', { observedAt: h.now - 50 }));
  return h;
}

describe('a waking fallback after the node it woke was stopped', () => {
  it('wakes the node again once a view settles it', () => {
    const h = woken();
    h.now += 500;
    expect(brief(h.arrive(2))).toEqual(['dispatch 2→hosted']);
    h.now += 2_000;
    expect(brief(h.views(stopped('gpu'), hostedView))).toEqual([`wake gpu ${MODEL} (demand)`]);
    h.now += 10;
    expect(brief(h.views(stopped('gpu'), hostedView))).toEqual([]);
    expect(h.scheduler.route(MODEL, h.now).reason).toContain(`"gpu" is already coming up`);
  });

  it('wakes it again when the request came while the wake that then failed was under way', () => {
    const h = new Harness(fleet(), [stopped('gpu'), hostedView]);
    h.arrive(1);
    h.now += 1_000;
    // The wake is still under way: the request rides on it.
    expect(brief(h.arrive(2))).toEqual(['dispatch 2→hosted']);
    h.now += 100;
    expect(
      brief(h.wakeFailed('gpu', `node "gpu" was stopped while it was starting ${MODEL}`)),
    ).toEqual([]);
    h.now += 2_000;
    expect(brief(h.views(stopped('gpu'), hostedView))).toEqual([`wake gpu ${MODEL} (demand)`]);
    h.now += 100;
    // That wake fails too: one wake per request, no more.
    h.wakeFailed('gpu', 'it crashed');
    h.now += 2_000;
    expect(brief(h.views(stopped('gpu'), hostedView))).toEqual([]);
  });

  it('owes nothing when no fallback answered meanwhile', () => {
    const h = woken();
    h.now += 2_000;
    expect(brief(h.views(stopped('gpu'), hostedView))).toEqual([]);
    expect(h.scheduler.route(MODEL, h.now).reason).toContain(`"gpu" is woken for ${MODEL}`);
  });

  it('starts a wake at once when the node was settled before the request', () => {
    const h = woken();
    h.now += 2_000;
    h.views(stopped('gpu'), hostedView);
    h.now += 10;
    expect(brief(h.arrive(2))).toEqual(['dispatch 2→hosted', `wake gpu ${MODEL} (demand)`]);
  });
});
