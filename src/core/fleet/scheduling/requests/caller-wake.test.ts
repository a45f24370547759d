/**
 * A caller's `wake: off` through the scheduler (docs/design.md D29): refused naming the node a
 * wake, a swap or a wait for its group would start, with nothing started or stopped; served as
 * usual by a running node, and left to wait for a node another request is already waking.
 */
import { describe, expect, it } from 'vitest';

import {
  brief,
  Harness,
  MODEL,
  running,
  stopped,
} from '../../../../../test/support/scheduling/scheduling.ts';
import type { Action } from '../types.ts';

const noWake = (h: Harness, id: number, model = MODEL): Action[] =>
  h.step({ kind: 'arrive', request: { id, model, streaming: false, mayWake: false } });

describe('wake: off', () => {
  it('is refused naming the node a wake would start, and nothing starts', () => {
    const h = new Harness({ nodes: [{ name: 'a' }, { name: 'b' }] }, [stopped('a'), stopped('b')]);
    const actions = noWake(h, 1);
    expect(brief(actions)).toEqual(['reject 1 wake_not_allowed']);
    expect(actions[0]).toMatchObject({ detail: { wakeRefused: 'a' } });
    expect(h.advance(60_000)).toEqual([]);
    expect(h.log.some((action) => action.kind === 'wake')).toBe(false);
  });

  it('is served by a running node as any request is, and queued for a full one', () => {
    const h = new Harness({ nodes: [{ name: 'a' }] }, [running('a', { slots: 1 })]);
    expect(brief(noWake(h, 1))).toEqual(['dispatch 1→a']);
    expect(noWake(h, 2)).toEqual([]);
    expect(brief(h.end(1))).toEqual(['dispatch 2→a']);
  });

  it("waits for a node another caller's request is already waking", () => {
    const h = new Harness({ nodes: [{ name: 'a' }] }, [stopped('a')]);
    expect(brief(h.arrive(1))).toEqual([`wake a ${MODEL} (demand)`]);
    expect(noWake(h, 2)).toEqual([]);
    expect(brief(h.wakeReady(running('a', { slots: 2 })))).toEqual([
      'dispatch 1→a',
      'dispatch 2→a',
    ]);
  });

  it('is refused where a swap would stop a group member for it', () => {
    const h = new Harness(
      {
        nodes: ['a', 'b'].map((name) => ({ name, group: 'gpu' })),
        groups: new Map([['gpu', { max: 1, minResidencyMs: 0 }]]),
      },
      [
        running('a', { serves: ['model-a'], wakes: ['model-a'], runningSince: -1, slots: 1 }),
        stopped('b', { wakes: ['model-b'] }),
      ],
    );
    const actions = noWake(h, 1, 'model-b');
    expect(brief(actions)).toEqual(['reject 1 wake_not_allowed']);
    expect(actions[0]).toMatchObject({ detail: { wakeRefused: 'b' } });
    expect(h.log.some((action) => action.kind === 'stop')).toBe(false);
  });
});
