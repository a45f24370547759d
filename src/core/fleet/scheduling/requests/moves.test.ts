/** docs/design.md D30 `failed`: a request retried on its fallback is counted where it runs now. */
import { describe, expect, it } from 'vitest';

import {
  brief,
  dispatches,
  Harness,
  hostedView,
  MODEL,
  running,
} from '../../../../../test/support/scheduling/scheduling.ts';

function harness(): Harness {
  return new Harness(
    {
      nodes: [{ name: 'gpu' }, { name: 'hosted', upstream: [MODEL, 'big'] }],
      fallbacks: new Map([[MODEL, { to: 'hosted' as const, when: ['failed' as const] }]]),
    },
    [running('gpu', { slots: 1 }), { ...hostedView, slots: 1 }],
  );
}

describe('a request moved to its fallback', () => {
  it('frees its slot on the failed node at once: the next request waiting there goes', () => {
    const h = harness();
    expect(dispatches(h.arrive(1))).toEqual(['1→gpu']);
    expect(dispatches(h.arrive(2))).toEqual([]);
    expect(dispatches(h.step({ kind: 'move', id: 1, node: 'hosted' }))).toEqual(['2→gpu']);
    expect([h.scheduler.inFlight('gpu'), h.scheduler.inFlight('hosted')]).toEqual([1, 1]);
    expect(h.scheduler.inFlightOf('hosted', h.now)?.models).toEqual(new Map([[MODEL, 1]]));
  });

  it("counts against the fallback's slots, and its end frees the fallback's", () => {
    const h = harness();
    h.arrive(1);
    h.step({ kind: 'move', id: 1, node: 'hosted' });
    // The fallback's one slot is taken: a model only it serves finds it full.
    expect(brief(h.arrive(2, { model: 'big' }))).toEqual(['reject 2 queue_full 5s']);
    h.end(1);
    expect(dispatches(h.arrive(3, { model: 'big' }))).toEqual(['3→hosted']);
    expect([h.scheduler.inFlight('gpu'), h.scheduler.inFlight('hosted')]).toEqual([0, 1]);
  });

  it('changes nothing for a request that ended, or for a node the fleet does not name', () => {
    const h = harness();
    h.arrive(1);
    h.step({ kind: 'move', id: 1, node: 'nowhere' });
    expect(h.scheduler.inFlight('gpu')).toBe(1);
    h.end(1);
    h.step({ kind: 'move', id: 1, node: 'hosted' });
    expect([h.scheduler.inFlight('gpu'), h.scheduler.inFlight('hosted')]).toEqual([0, 0]);
  });
});
