/**
 * docs/design.md D30 through the scheduler: an upstream node serves nothing in the views, so only
 * the upstream step sends a request there: a model only it serves, a full queue, a waking fallback
 * (the wake still starts); never for a caller without the upstreams right, and never past a local
 * node that can serve now. The route reads the same answer.
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
import type { FleetFallback } from '../../file/fleet-file.ts';
import type { RequestId } from '../types.ts';

const WAKING: FleetFallback = { to: 'hosted', when: ['waking'] };

function fleet(fallback?: FleetFallback, max?: number) {
  return {
    nodes: [{ name: 'gpu' }, { name: 'hosted', upstream: [MODEL, 'big'] }],
    ...(fallback === undefined ? {} : { fallbacks: new Map([[MODEL, fallback]]) }),
    ...(max === undefined ? {} : { queue: { max } }),
  };
}

function arrive(h: Harness, id: RequestId, model = MODEL, mayUseUpstreams?: false) {
  return h.step({
    kind: 'arrive',
    request: {
      id,
      model,
      streaming: false,
      ...(mayUseUpstreams === undefined ? {} : { mayUseUpstreams }),
    },
  });
}

describe('the upstream step of an arrival', () => {
  it('sends a model only an upstream node serves there', () => {
    const h = new Harness(fleet(), [stopped('gpu'), hostedView]);
    expect(brief(arrive(h, 1, 'big'))).toEqual(['dispatch 1→hosted']);
  });

  it('prefers a local node that can serve now', () => {
    const h = new Harness(fleet(), [running('gpu', { slots: 1 }), hostedView]);
    expect(brief(arrive(h, 1))).toEqual(['dispatch 1→gpu']);
  });

  it('queues for a local slot while the queue has room, then goes upstream when it has none', () => {
    const h = new Harness(fleet(undefined, 1), [running('gpu', { slots: 1 }), hostedView]);
    arrive(h, 1);
    expect(brief(arrive(h, 2))).toEqual([]);
    expect(brief(arrive(h, 3))).toEqual(['dispatch 3→hosted']);
  });

  it('waits for a wake unless the model has a waking fallback, which answers while the wake starts', () => {
    const plain = new Harness(fleet(), [stopped('gpu'), hostedView]);
    expect(brief(arrive(plain, 1))).toEqual(['wake gpu chat (demand)']);
    const h = new Harness(fleet(WAKING), [stopped('gpu'), hostedView]);
    const actions = arrive(h, 1);
    expect(brief(actions)).toEqual(['dispatch 1→hosted', 'wake gpu chat (demand)']);
    expect(actions[0]).toMatchObject({ kind: 'dispatch', fallback: 'waking' });
    expect(h.scheduler.route(MODEL, h.now)).toMatchObject({ action: 'fallback', node: 'hosted' });
  });

  it('never sends a caller without the upstreams right upstream', () => {
    const h = new Harness(fleet(WAKING), [stopped('gpu'), hostedView]);
    expect(brief(arrive(h, 1, MODEL, false))).toEqual(['wake gpu chat (demand)']);
    expect(brief(arrive(h, 2, 'big', false))).toEqual(['reject 2 no_node']);
  });

  it('sends nothing to an upstream node that does not answer', () => {
    const h = new Harness(fleet(WAKING), [
      stopped('gpu'),
      { ...hostedView, state: 'unreachable', ready: false },
    ]);
    expect(brief(arrive(h, 1))).toEqual(['wake gpu chat (demand)']);
  });
});
