/** The per-node count of requests in flight: exact, and never taken down by a second release. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { InFlight } from './in-flight.ts';

describe('InFlight', () => {
  it('counts each request from begin to its release, per node', () => {
    let now = 1_000;
    const inFlight = new InFlight(() => now);
    expect(inFlight.count('a')).toBe(0);
    expect(inFlight.of('a')).toBeUndefined();
    const first = inFlight.begin('a', 'qwen');
    now = 3_000;
    const second = inFlight.begin('a', 'gemma');
    const third = inFlight.begin('a', 'qwen');
    const other = inFlight.begin('b', 'qwen');
    now = 13_500;
    expect(inFlight.count('a')).toBe(3);
    expect(inFlight.count('b')).toBe(1);
    expect(inFlight.of('a')).toEqual({
      count: 3,
      models: new Map([
        ['qwen', 2],
        ['gemma', 1],
      ]),
      oldestMs: 12_500,
    });
    first();
    expect(inFlight.of('a')).toEqual({
      count: 2,
      models: new Map([
        ['gemma', 1],
        ['qwen', 1],
      ]),
      oldestMs: 10_500,
    });
    second();
    third();
    other();
    expect(inFlight.count('a')).toBe(0);
    expect(inFlight.of('a')).toBeUndefined();
    expect(inFlight.count('b')).toBe(0);
  });

  it('releases each request once: a second call takes nothing from the others', () => {
    const inFlight = new InFlight(() => 0);
    const first = inFlight.begin('a', 'm');
    inFlight.begin('a', 'm');
    first();
    first();
    expect(inFlight.count('a')).toBe(1);
  });

  it('keeps a node emptied and busy again apart from its earlier releases', () => {
    const inFlight = new InFlight(() => 0);
    const early = inFlight.begin('a', 'm');
    early();
    const later = inFlight.begin('a', 'm');
    early();
    expect(inFlight.count('a')).toBe(1);
    later();
    expect(inFlight.count('a')).toBe(0);
  });

  it('never reads an oldest duration below zero when the clock steps back', () => {
    let now = 5_000;
    const inFlight = new InFlight(() => now);
    inFlight.begin('a', 'm');
    now = 4_000;
    expect(inFlight.of('a')?.oldestMs).toBe(0);
  });

  it('matches a plain count for any order of begins and releases', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b'), fc.nat(20), fc.boolean()), {
          maxLength: 60,
        }),
        (steps) => {
          const inFlight = new InFlight(() => 0);
          const open: { node: string; release: () => void }[] = [];
          const expected = new Map<string, number>();
          for (const [node, pick, release] of steps) {
            if (release && open.length > 0) {
              const [chosen] = open.splice(pick % open.length, 1);
              chosen?.release();
              chosen?.release();
              expected.set(chosen?.node ?? '', (expected.get(chosen?.node ?? '') ?? 0) - 1);
            } else {
              open.push({ node, release: inFlight.begin(node, 'm') });
              expected.set(node, (expected.get(node) ?? 0) + 1);
            }
          }
          for (const node of ['a', 'b']) {
            expect(inFlight.count(node)).toBe(expected.get(node) ?? 0);
            expect(inFlight.of(node)?.count ?? 0).toBe(expected.get(node) ?? 0);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
