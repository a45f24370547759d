/**
 * docs/design.md D30 `failed`, over random interleavings of arrivals, ends, hang-ups, time, and
 * failures retried on the fallback (the gateway's `move`, sometimes stale, sometimes followed by
 * the retry failing too): after every step each node's in-flight count is the number of relays
 * really running there, the request a failure moved counted on the fallback and no longer on the
 * node that failed, and none is lost: once everything ends, every request had one answer and
 * nothing is counted anywhere.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  Harness,
  hostedView,
  MODEL,
  running,
} from '../../../../../test/support/scheduling/scheduling.ts';
import type { Action } from '../types.ts';

const NODES = ['gpu', 'spare', 'hosted'] as const;

type Step =
  | { readonly kind: 'arrive'; readonly big: boolean }
  | { readonly kind: 'end' | 'fail' | 'failTwice' | 'hangUp' | 'stale'; readonly pick: number }
  | { readonly kind: 'advance'; readonly ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('arrive' as const), big: fc.boolean() }),
  fc.record({
    kind: fc.constantFrom('end', 'fail', 'failTwice', 'hangUp', 'stale'),
    pick: fc.nat(20),
  }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 40_000 }) }),
);

function play(slots: { gpu: number; spare: number; hosted: number }, steps: readonly Step[]) {
  const h = new Harness(
    {
      nodes: [{ name: 'gpu' }, { name: 'spare' }, { name: 'hosted', upstream: [MODEL, 'big'] }],
      fallbacks: new Map([[MODEL, { to: 'hosted' as const, when: ['failed' as const] }]]),
      queue: { max: 4, timeoutMs: 30_000 },
    },
    [
      running('gpu', { slots: slots.gpu }),
      running('spare', { slots: slots.spare }),
      { ...hostedView, slots: slots.hosted },
    ],
  );
  /** Where each request's relay runs now; the waiting; every answer given. */
  const relays = new Map<number, string>();
  const waiting = new Set<number>();
  const answers = new Map<number, number>();
  let next = 0;
  const apply = (actions: readonly Action[]): void => {
    for (const action of actions) {
      if (action.kind !== 'dispatch' && action.kind !== 'reject') {
        continue;
      }
      answers.set(action.id, (answers.get(action.id) ?? 0) + 1);
      waiting.delete(action.id);
      if (action.kind === 'dispatch') {
        relays.set(action.id, action.node);
      }
    }
  };
  const end = (id: number): void => {
    relays.delete(id);
    waiting.delete(id);
    apply(h.end(id));
  };
  const pick = <T>(from: Iterable<T>, index: number): T | undefined => {
    const all = [...from];
    return all[index % Math.max(1, all.length)];
  };
  const check = (): void => {
    for (const node of NODES) {
      const there = [...relays.values()].filter((at) => at === node).length;
      expect(h.scheduler.inFlight(node), node).toBe(there);
      expect(h.scheduler.inFlightOf(node, h.now)?.count ?? 0, node).toBe(there);
    }
  };
  for (const s of steps) {
    h.now += 10;
    if (s.kind === 'arrive') {
      next += 1;
      waiting.add(next);
      apply(h.arrive(next, { model: s.big ? 'big' : MODEL }));
    } else if (s.kind === 'advance') {
      apply(h.advance(s.ms));
    } else if (s.kind === 'hangUp') {
      const id = pick(waiting, s.pick);
      if (id !== undefined) {
        end(id);
      }
    } else {
      // A relay that failed before its first byte on a local node is retried on the fallback.
      const local = [...relays].filter(([, node]) => node !== 'hosted').map(([id]) => id);
      const id = pick(s.kind === 'end' ? relays.keys() : local, s.pick);
      if (id === undefined) {
        continue;
      }
      if (s.kind === 'end') {
        end(id);
      } else if (s.kind === 'stale') {
        // A move that comes after the request ended changes nothing.
        end(id);
        apply(h.step({ kind: 'move', id, node: 'hosted' }));
      } else {
        relays.set(id, 'hosted');
        apply(h.step({ kind: 'move', id, node: 'hosted' }));
        if (s.kind === 'failTwice') {
          end(id);
        }
      }
    }
    check();
  }
  // Each end may let a waiting request go: ended in turn until nothing runs.
  for (let id = relays.keys().next().value; id !== undefined; id = relays.keys().next().value) {
    end(id);
  }
  apply(h.advance(60_000));
  check();
  expect([...relays.keys()]).toEqual([]);
  for (let id = 1; id <= next; id += 1) {
    expect(answers.get(id) ?? 0, `request ${id}`).toBeLessThanOrEqual(1);
  }
  expect([...waiting].filter((id) => !answers.has(id))).toEqual([]);
  expect(h.scheduler.waitingCount()).toBe(0);
}

describe('requests moved to the fallback over random interleavings', () => {
  it('counts each request where its relay runs, always, and loses none', () => {
    const slots = fc.record({
      gpu: fc.integer({ min: 1, max: 3 }),
      spare: fc.integer({ min: 1, max: 2 }),
      hosted: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(fc.property(slots, fc.array(step, { maxLength: 60 }), play), { numRuns: 300 });
  });
});
