/**
 * docs/design.md D30, D33: the route says when a request would go to an upstream node or a
 * fallback, which node a waking fallback still wakes, and what each upstream node not chosen
 * would take; over the same scheduler the gateway runs.
 */
import { describe, expect, it } from 'vitest';

import {
  Harness,
  hostedView,
  MODEL,
  running,
  stopped,
} from '../../../../test/support/scheduling/scheduling.ts';
import type { FleetFallback } from '../file/fleet-file.ts';

function fleet(fallback?: FleetFallback) {
  return {
    nodes: [{ name: 'gpu' }, { name: 'hosted', upstream: [MODEL, 'big'] }],
    ...(fallback === undefined ? {} : { fallbacks: new Map([[MODEL, fallback]]) }),
  };
}

function parts(h: Harness, model: string) {
  const decision = h.scheduler.route(model, h.now);
  return { ...decision, nodes: decision.nodes.map((node) => `${node.name} ${node.verdict}`) };
}

describe('the route over upstream nodes', () => {
  it('says a model only an upstream node serves goes there', () => {
    const h = new Harness(fleet(), [running('gpu'), hostedView]);
    const decision = parts(h, 'big');
    expect(decision).toMatchObject({ action: 'serve', node: 'hosted' });
    expect(decision.reason).toContain('upstream node "hosted" serves big');
    expect(decision.nodes).toEqual(['gpu other', 'hosted serve']);
  });

  it('says a waking fallback answers, and which node it still wakes', () => {
    const h = new Harness(fleet({ to: 'hosted', when: ['waking'] }), [stopped('gpu'), hostedView]);
    const decision = parts(h, MODEL);
    expect(decision).toMatchObject({ action: 'fallback', node: 'hosted' });
    expect(decision.reason).toBe(
      `upstream node "hosted" answers ${MODEL} as its fallback (waking); "gpu" is woken for ${MODEL} meanwhile`,
    );
    expect(decision.nodes).toEqual(['gpu wake', 'hosted serve']);
    // Once a request went there, its wake is under way: the next goes there too, and waits for
    // no second wake.
    h.arrive(1, { model: MODEL });
    const next = parts(h, MODEL);
    expect(next).toMatchObject({ action: 'fallback', node: 'hosted' });
    expect(next.reason).toContain(`; "gpu" is already coming up with ${MODEL}`);
    expect(next.nodes).toEqual(['gpu waking', 'hosted serve']);
  });

  it('says when an upstream node not chosen would take the model', () => {
    const h = new Harness(fleet({ to: 'hosted', when: ['waking', 'queueFull'] }), [
      running('gpu', { slots: 1 }),
      hostedView,
    ]);
    const decision = h.scheduler.route(MODEL, h.now);
    expect(decision).toMatchObject({ action: 'serve', node: 'gpu' });
    expect(decision.nodes[1]).toMatchObject({
      verdict: 'ready',
      reason: `upstream node: takes ${MODEL} only when no other node can serve it now, or as its fallback (waking, queueFull)`,
    });
  });
});
