/** docs/design.md D30's placement of requests on upstream nodes and fallbacks, by example and property. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { FleetFallback } from '../../file/fleet-file.ts';
import {
  type LocalOutcome,
  retryOnFailure,
  upstreamChoice,
  type UpstreamQuestion,
} from './upstream-choice.ts';

const ALL: FleetFallback = { to: 'hosted', when: ['waking', 'queueFull', 'failed'] };
const hosted = { name: 'hosted', free: true };

describe('upstreamChoice', () => {
  it('prefers a local node that can serve now, or a queue with room', () => {
    for (const local of ['dispatch', 'queue'] as const) {
      expect(
        upstreamChoice({ local, upstreams: [hosted], fallback: ALL, mayUseUpstreams: true }),
      ).toEqual({
        kind: 'local',
      });
    }
  });

  it('sends a model only upstream nodes serve to the first free one, in file order', () => {
    const upstreams = [
      { name: 'a', free: false },
      { name: 'b', free: true },
      { name: 'c', free: true },
    ];
    expect(upstreamChoice({ local: 'none', upstreams, mayUseUpstreams: true })).toEqual({
      kind: 'upstream',
      node: 'b',
    });
    expect(
      upstreamChoice({
        local: 'none',
        upstreams: [{ name: 'a', free: false }],
        mayUseUpstreams: true,
      }),
    ).toEqual({ kind: 'full' });
  });

  it('takes a request the local nodes have no slot or queue room for', () => {
    expect(
      upstreamChoice({ local: 'queueFull', upstreams: [hosted], mayUseUpstreams: true }),
    ).toEqual({
      kind: 'upstream',
      node: 'hosted',
    });
  });

  it('answers from the fallback instead of a full queue, saying why', () => {
    expect(
      upstreamChoice({
        local: 'queueFull',
        upstreams: [{ name: 'x', free: true }, hosted],
        fallback: ALL,
        mayUseUpstreams: true,
      }),
    ).toEqual({ kind: 'fallback', node: 'hosted', reason: 'queueFull' });
  });

  it('sends a request that would wait for a wake upstream only through a waking fallback', () => {
    expect(upstreamChoice({ local: 'wake', upstreams: [hosted], mayUseUpstreams: true })).toEqual({
      kind: 'local',
    });
    expect(
      upstreamChoice({ local: 'wake', upstreams: [hosted], fallback: ALL, mayUseUpstreams: true }),
    ).toEqual({
      kind: 'fallback',
      node: 'hosted',
      reason: 'waking',
    });
    const notWaking: FleetFallback = { to: 'hosted', when: ['queueFull'] };
    expect(
      upstreamChoice({
        local: 'wake',
        upstreams: [hosted],
        fallback: notWaking,
        mayUseUpstreams: true,
      }),
    ).toEqual({ kind: 'local' });
  });

  it('uses no fallback that is unreachable or full', () => {
    expect(
      upstreamChoice({
        local: 'wake',
        upstreams: [{ name: 'hosted', free: false }],
        fallback: ALL,
        mayUseUpstreams: true,
      }),
    ).toEqual({ kind: 'local' });
    expect(
      upstreamChoice({ local: 'wake', upstreams: [], fallback: ALL, mayUseUpstreams: true }),
    ).toEqual({
      kind: 'local',
    });
  });

  const outcome = fc.constantFrom<LocalOutcome>(
    'dispatch',
    'queue',
    'wake',
    'queueFull',
    'none',
    'wakeRefused',
  );
  const question: fc.Arbitrary<UpstreamQuestion> = fc.record({
    local: outcome,
    upstreams: fc.uniqueArray(
      fc.record({ name: fc.constantFrom('hosted', 'u1', 'u2'), free: fc.boolean() }),
      { selector: (node) => node.name, maxLength: 3 },
    ),
    fallback: fc.option(
      fc.record({
        to: fc.constantFrom('hosted', 'u1'),
        when: fc.subarray(['waking', 'queueFull', 'failed'] as const),
      }),
      { nil: undefined },
    ),
    mayUseUpstreams: fc.boolean(),
  }) as fc.Arbitrary<UpstreamQuestion>;

  it('never sends a caller without the upstreams right upstream (property)', () => {
    fc.assert(
      fc.property(question, (asked) => {
        const choice = upstreamChoice({ ...asked, mayUseUpstreams: false });
        expect(choice.kind === 'upstream' || choice.kind === 'fallback').toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('goes upstream only to a free node serving the model, and never past a local node that can serve (property)', () => {
    fc.assert(
      fc.property(question, (asked) => {
        const choice = upstreamChoice(asked);
        if (choice.kind === 'upstream' || choice.kind === 'fallback') {
          expect(asked.upstreams).toContainEqual({ name: choice.node, free: true });
          expect(['dispatch', 'queue', 'wakeRefused']).not.toContain(asked.local);
        }
        if (choice.kind === 'fallback') {
          expect(asked.fallback?.to).toBe(choice.node);
          expect(asked.fallback?.when).toContain(choice.reason);
        }
        if (asked.local === 'wake') {
          // A wake reaches an upstream only through the waking fallback.
          expect(choice.kind === 'upstream').toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('retryOnFailure', () => {
  it('retries once on the fallback before the first byte, never after', () => {
    expect(retryOnFailure(ALL, 'gpu', false, true)).toBe('hosted');
    expect(retryOnFailure(ALL, 'gpu', true, true)).toBeUndefined();
  });

  it('does not retry without the failed reason, the right, or from the fallback itself', () => {
    expect(retryOnFailure({ to: 'hosted', when: ['waking'] }, 'gpu', false, true)).toBeUndefined();
    expect(retryOnFailure(ALL, 'gpu', false, false)).toBeUndefined();
    expect(retryOnFailure(ALL, 'hosted', false, true)).toBeUndefined();
    expect(retryOnFailure(undefined, 'gpu', false, true)).toBeUndefined();
  });
});
