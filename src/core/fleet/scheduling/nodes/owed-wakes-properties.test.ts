/**
 * docs/design.md D30, over random interleavings of waking-fallback requests, wakes that end or
 * fail (the node stopped while it loaded), stops and late views: a node is never woken while a
 * wake of it is under way or it runs, and a request the fallback answered while the node was
 * down is never left without a wake: once a view settles the node stopped, it is woken.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  Harness,
  hostedView,
  MODEL,
  running,
  stopped,
} from '../../../../../test/support/scheduling/scheduling.ts';
import type { Action } from '../types.ts';

type Step = 'arrive' | 'ready' | 'stopLoading' | 'stop' | 'view' | 'lateView' | 'advance';

const STEPS: readonly Step[] = ['arrive', 'ready', 'stopLoading', 'stop', 'view', 'lateView'];

function play(steps: readonly Step[]): void {
  const h = new Harness(
    {
      nodes: [{ name: 'gpu' }, { name: 'hosted', upstream: [MODEL] }],
      fallbacks: new Map([[MODEL, { to: 'hosted' as const, when: ['waking' as const] }]]),
    },
    [stopped('gpu'), hostedView],
  );
  // Widened: woke() moves it to 'waking' where the checker's narrowing cannot see.
  let truth = 'stopped' as 'stopped' | 'waking' | 'running';
  /** A request answered while the node was down, with no wake started since. */
  let owed = false;
  let id = 0;
  const woke = (actions: readonly Action[]): boolean => {
    const wakes = actions.filter((action) => action.kind === 'wake');
    if (wakes.length > 0) {
      expect(truth).toBe('stopped');
      expect(wakes).toHaveLength(1);
      truth = 'waking';
      owed = false;
    }
    return wakes.length > 0;
  };
  const truthView = () => (truth === 'running' ? running('gpu') : stopped('gpu'));
  for (const step of steps) {
    h.now += 10;
    if (step === 'arrive') {
      id += 1;
      const down = truth !== 'running';
      if (!woke(h.arrive(id)) && down) {
        owed = true;
      }
      h.end(id);
    } else if (step === 'ready' && truth === 'waking') {
      truth = 'running';
      owed = false;
      woke(h.wakeReady(running('gpu')));
    } else if (step === 'stopLoading' && truth === 'waking') {
      truth = 'stopped';
      woke(h.wakeFailed('gpu', 'node "gpu" was stopped while it was starting'));
    } else if (step === 'stop' && truth === 'running') {
      truth = 'stopped';
      woke(h.views(stopped('gpu')));
    } else if (step === 'view' && truth !== 'waking') {
      woke(h.views(truthView(), hostedView));
    } else if (step === 'lateView' && truth !== 'waking') {
      woke(h.views({ ...truthView(), observedAt: h.now - 20 }, hostedView));
    } else if (step === 'advance') {
      h.now += 1_000;
    }
  }
  if (truth === 'waking') {
    return;
  }
  h.now += 1_000;
  const settled = woke(h.views(truthView(), hostedView));
  if (owed && truth === 'stopped') {
    expect(settled).toBe(true);
  }
}

describe('owed wakes over random interleavings', () => {
  it('never wakes a node twice at once, and never leaves an answered request without a wake', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...STEPS, 'advance' as const), { maxLength: 40 }), play),
      { numRuns: 300 },
    );
  });
});
