/**
 * Affinity across a stop (docs/design.md D32, kept-affinity.ts): a node that keeps its prompt
 * cache keeps its affinity entries through an idle stop or a swap, and a wake for the resumed
 * conversation goes to it; a node that does not, one that crashed, and one whose restore brought
 * nothing back lose them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  brief,
  dispatches,
  Harness,
  running,
  stopped,
} from '../../../../../test/support/scheduling/scheduling.ts';
import type { Action, NodeView } from '../types.ts';
import { AffinityMemory } from './affinity.ts';
import { forgetLostCache } from './kept-affinity.ts';

const TWO = { nodes: [{ name: 'a' }, { name: 'b' }] };
const KEEPS = { keepsCache: true } as const;

function wakes(actions: readonly Action[]): string[] {
  return actions.flatMap((action) => (action.kind === 'wake' ? [action.node] : []));
}

/** `k` sent to b (a is busy with another), both ended, then both stopped as `down` says. */
function heldByB(down: Partial<NodeView>): Harness {
  const h = new Harness(TWO, [running('a', { slots: 1, ...KEEPS }), running('b', KEEPS)]);
  h.arrive(1);
  expect(dispatches(h.arrive(2, { affinity: 'k' }))).toEqual(['2→b']);
  h.end(1);
  h.end(2);
  h.now = 1_000;
  h.views(stopped('a', KEEPS), stopped('b', down));
  return h;
}

describe('affinity kept across a stop', () => {
  it('wakes the node that kept the conversation cache, not the first in file order', () => {
    const h = heldByB(KEEPS);
    h.now = 2_000;
    expect(wakes(h.arrive(3, { affinity: 'k' }))).toEqual(['b']);
    expect(dispatches(h.wakeReady(running('b', { ...KEEPS, cacheRestored: 1 })))).toEqual(['3→b']);
  });

  it('forgets the node when its cache did not survive: no keepCache, or a crash', () => {
    // A crashed engine's view no longer says it keeps its cache (view-of-snapshot.ts).
    const h = heldByB({});
    h.now = 2_000;
    expect(wakes(h.arrive(3, { affinity: 'k' }))).toEqual(['a']);
  });

  it('forgets the node once a start restored nothing', () => {
    const h = heldByB(KEEPS);
    h.now = 1_500;
    // Another conversation, `j`, wakes b, and b's restore brings no slot back.
    expect(wakes(h.arrive(3, { affinity: 'j' }))).toEqual(['a']);
    h.now = 1_600;
    h.wakeReady(running('a', KEEPS));
    h.views(running('b', { ...KEEPS, cacheRestored: 0 }));
    h.now = 2_000;
    h.views(stopped('a', KEEPS), stopped('b', KEEPS));
    h.end(3);
    h.now = 3_000;
    expect(wakes(h.arrive(4, { affinity: 'k' }))).toEqual(['a']);
  });

  it('forgets only the node that lost its cache, and only on the way down', () => {
    const memory = new AffinityMemory();
    memory.remember('k', 'b');
    memory.remember('j', 'a');
    const up = running('b', KEEPS);
    forgetLostCache(memory, up, stopped('b', KEEPS));
    forgetLostCache(memory, stopped('b', KEEPS), stopped('b'));
    expect(memory.nodeFor('k')).toBe('b');
    forgetLostCache(memory, up, stopped('b'));
    expect([memory.nodeFor('k'), memory.nodeFor('j')]).toEqual([undefined, 'a']);
  });

  it('property: after any run of conversations and stops, a wake goes to the last node that served it', () => {
    const step = fc.record({ key: fc.constantFrom('k0', 'k1', 'k2'), busy: fc.boolean() });
    fc.assert(
      fc.property(
        fc.array(fc.array(step, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom('k0', 'k1', 'k2'),
        fc.record({ a: fc.boolean(), b: fc.boolean() }),
        (rounds, resumed, keeps) => {
          const extra = (node: 'a' | 'b') => (keeps[node] ? KEEPS : {});
          const h = new Harness(TWO, [running('a', extra('a')), running('b', extra('b'))]);
          const last = new Map<string, string>();
          let id = 0;
          for (const round of rounds) {
            for (const { key, busy } of round) {
              h.now += 10;
              if (busy) {
                h.arrive((id += 1)); // another caller's request, ending after this one's
              }
              const [sent] = dispatches(h.arrive((id += 1), { affinity: key }));
              last.set(key, sent?.split('→')[1] ?? '');
              h.end(id);
              if (busy) {
                h.end(id - 1);
              }
            }
            // Both go down (an idle stop each), then come back with what they restored.
            h.now += 1_000;
            h.views(stopped('a', extra('a')), stopped('b', extra('b')));
            h.now += 1_000;
            h.views(
              running('a', { ...extra('a'), cacheRestored: 1 }),
              running('b', { ...extra('b'), cacheRestored: 1 }),
            );
          }
          h.now += 1_000;
          h.views(stopped('a', extra('a')), stopped('b', extra('b')));
          h.now += 1_000;
          const holder = last.get(resumed);
          const kept = holder === 'a' || holder === 'b' ? keeps[holder] : false;
          const woken = wakes(h.arrive((id += 1), { affinity: resumed }));
          expect(woken, brief(h.log).join('\n')).toEqual([kept ? holder : 'a']);
        },
      ),
      { numRuns: 200 },
    );
  });
});
