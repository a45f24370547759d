/**
 * Fair shares in the queue (docs/design.md D29) over random interleavings: arrivals from several
 * callers of every weight, some with a `concurrency`, slot frees, hang-ups and timeouts, on one
 * node of one to three slots. The world (test/support/scheduling/fair-world.ts) checks as it
 * goes: none lost, none answered twice, first in, first out within a caller, no caller over its
 * `concurrency`, no slot free while someone who may run waits, and no caller that waits and may
 * run passed over more than stride scheduling's bound. Then the shares: callers backlogged on one
 * slot are served in proportion to their weights.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  type FairCaller,
  type FairCommand,
  type FairSpec,
  FairWorld,
} from '../../../../test/support/scheduling/fair-world.ts';

const caller: fc.Arbitrary<FairCaller> = fc.record(
  {
    weight: fc.constantFrom(1 as const, 2 as const, 4 as const),
    concurrency: fc.integer({ min: 1, max: 3 }),
  },
  { requiredKeys: ['weight'] },
);

const spec: fc.Arbitrary<FairSpec> = fc.record({
  slots: fc.integer({ min: 1, max: 3 }),
  callers: fc.array(caller, { minLength: 1, maxLength: 4 }),
  queue: fc.record({
    max: fc.constantFrom(2, 8, 64),
    timeoutMs: fc.constantFrom(1_000, 10_000),
  }),
});

const command: fc.Arbitrary<FairCommand> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('arrive' as const), caller: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('end' as const), pick: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hang-up' as const), pick: fc.nat(7) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(100, 2_000, 12_000),
    }),
  },
);

describe('fair shares in the queue', () => {
  it('loses none, starves none, and keeps every caller within its concurrency', () => {
    fc.assert(
      fc.property(spec, fc.array(command, { maxLength: 120 }), (world, commands) => {
        const w = new FairWorld(world);
        commands.forEach((c) => {
          w.run(c);
        });
        w.settle();
      }),
      { numRuns: 300 },
    );
  });

  it('serves backlogged callers in proportion to their weights', () => {
    const backlog = fc.array(fc.constantFrom(1 as const, 2 as const, 4 as const), {
      minLength: 2,
      maxLength: 4,
    });
    fc.assert(
      fc.property(backlog, fc.nat(1_000), (weights, shuffle) => {
        const perCaller = 60;
        const w = new FairWorld({
          slots: 1,
          callers: weights.map((weight) => ({ weight })),
          queue: { max: 1_000, timeoutMs: 3_600_000 },
        });
        // Every caller's backlog, interleaved in an order drawn from `shuffle`.
        const arrivals = weights.flatMap((_, index) => Array<number>(perCaller).fill(index));
        arrivals.sort((a, b) => ((a * 7919 + shuffle) % 13) - ((b * 7919 + shuffle) % 13));
        arrivals.forEach((index) => {
          w.run({ kind: 'arrive', caller: index });
        });
        // While all stay backlogged: the first `rounds` dispatches.
        const total = weights.reduce((sum, weight) => sum + weight, 0);
        const rounds = Math.floor((perCaller * total) / Math.max(...weights)) - total;
        for (let turn = 0; turn < rounds; turn += 1) {
          w.run({ kind: 'end', pick: 0 });
        }
        const served = w.dispatched.slice(0, rounds);
        weights.forEach((weight, index) => {
          const share = served.filter((c) => c === index).length;
          // Stride scheduling keeps each within one turn per caller of its exact share.
          expect(Math.abs(share - (rounds * weight) / total)).toBeLessThanOrEqual(weights.length);
        });
        w.settle();
      }),
      { numRuns: 100 },
    );
  });
});
