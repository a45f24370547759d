/**
 * What an arrival's step forgets rather than applies (docs/design.md D33 fast paths, RequestInfo
 * `forget`): `unlessPlaced` forgets all but a placement now; `noNodeRefusal` forgets only a
 * refusal for want of a node, so an upstream node's request, a queue or a wake are answered in the
 * one step, and a request for a model nothing serves is left for the gateway to ask its silent
 * nodes about first.
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
import type { RequestInfo } from '../types.ts';

function harness() {
  return new Harness({ nodes: [{ name: 'gpu' }, { name: 'hosted', upstream: ['big'] }] }, [
    running('gpu', { slots: 1 }),
    hostedView,
  ]);
}

function arrive(h: Harness, id: number, model: string, forget: RequestInfo['forget']) {
  return brief(
    h.step({
      kind: 'arrive',
      request: { id, model, streaming: false, ...(forget === undefined ? {} : { forget }) },
    }),
  );
}

describe('an arrival that forgets', () => {
  it('places an upstream-only model in one step unless told to forget all but a placement', () => {
    expect(arrive(harness(), 1, 'big', 'unlessPlaced')).toEqual([]);
    expect(arrive(harness(), 1, 'big', 'noNodeRefusal')).toEqual(['dispatch 1→hosted']);
  });

  it('queues behind a full node in one step, and forgets only a refusal for want of a node', () => {
    const h = harness();
    expect(arrive(h, 1, MODEL, 'noNodeRefusal')).toEqual(['dispatch 1→gpu']);
    expect(arrive(h, 2, MODEL, 'noNodeRefusal')).toEqual([]);
    expect(h.scheduler.waiting(2, 0)).toMatchObject({ position: 1 });
    expect(arrive(h, 3, 'nothing-serves-this', 'noNodeRefusal')).toEqual([]);
    expect(h.scheduler.waiting(3, 0)).toBeUndefined();
    expect(arrive(h, 4, 'nothing-serves-this', undefined)).toEqual(['reject 4 no_node']);
  });

  it('wakes a stopped node in one step', () => {
    const h = new Harness({ nodes: [{ name: 'gpu' }] }, [stopped('gpu')]);
    expect(arrive(h, 1, MODEL, 'noNodeRefusal')).toEqual([`wake gpu ${MODEL} (demand)`]);
    expect(h.scheduler.waiting(1, 0)).toMatchObject({ position: 1 });
  });
});
