/**
 * The scheduler's invariants over random interleavings (docs/design.md D25, D26): requests
 * arriving, ending and hanging up; nodes starting, crashing on start, loading for ever, crashing
 * later, carrying others' load; refreshes arriving late; the clock jumping. The simulated world
 * (test/support/scheduling/scheduling-world.ts) checks every rule as it applies each action and throws a
 * violation naming the rule, which fast-check shrinks to its shortest counterexample:
 * FIFO per model; no request lost (each dispatched, refused or hung up, exactly once, and every
 * wait ends); no node over its slots through our dispatches; a group never over its size (members
 * starting, running or stopping); no stop with a request, a stream least of all, in flight; at
 * most one wake in progress per node; the in-flight books exact; the timer always settles.
 * The same rules run under a few mixes, each weighted towards what it is most likely to break.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { NodeSpec, WorldSpec } from '../../../../test/support/scheduling/scheduling-world.ts';
import {
  commands,
  nodeSpecOf,
  play,
  playNoting,
  type Weights,
} from '../../../../test/support/scheduling/world-runs.ts';

const RUNS = 200;

/** A node, named by its place once the fleet is drawn (so shrinking drops nodes cleanly). */
const nodeSpec = nodeSpecOf(fc.option(fc.constant('g'), { nil: undefined }));

/** A fleet; `oneGpu` puts every node in the one group. */
function worldSpec(oneGpu = false): fc.Arbitrary<WorldSpec> {
  return fc
    .record({
      nodes: fc.array(nodeSpec, { minLength: 1, maxLength: 4 }),
      group: fc.record({
        max: fc.integer({ min: 1, max: 2 }),
        minResidencyMs: fc.constantFrom(0, 3_000, 20_000),
      }),
      queue: fc.record({
        max: fc.constantFrom(0, 1, 3, 8),
        timeoutMs: fc.constantFrom(2_000, 10_000, 60_000),
      }),
      wakeTimeoutMs: fc.constantFrom(3_000, 20_000),
      prefer: fc.constantFrom('idle' as const, 'active' as const),
      affinity: fc.boolean(),
    })
    .map(({ nodes, group, ...rest }) => {
      // The world starts within its group's size, as a gateway finds a fleet that obeys it.
      let up = 0;
      const fitted = nodes.map((node, index): NodeSpec => {
        const grouped = oneGpu ? { ...node, group: 'g' } : node;
        const fits = grouped.group === undefined || up < group.max;
        up += grouped.up && grouped.group !== undefined && fits ? 1 : 0;
        return { ...grouped, name: `n${index}`, up: grouped.up && fits };
      });
      // Requests name what the nodes describe, and now and then a model none does ('ghost').
      const models = [...new Set(fitted.map((node) => node.model))];
      return { ...rest, nodes: fitted, groups: new Map([['g', group]]), models };
    });
}

const MIXED: Weights = {
  arrive: 5,
  end: 3,
  'hang-up': 1,
  advance: 3,
  refresh: 2,
  crash: 1,
  others: 1,
  start: 0,
};
/** Many refreshes, some of them late, between few clock moves; nodes that crash. */
const LATE: Weights = {
  arrive: 3,
  end: 1,
  'hang-up': 0,
  advance: 1,
  refresh: 4,
  crash: 2,
  others: 0,
  start: 1,
};
/** Operators' starts, forced or not, among requests, ends and refreshes (docs/design.md D33). */
const STARTS: Weights = {
  arrive: 4,
  end: 3,
  'hang-up': 1,
  advance: 3,
  refresh: 2,
  crash: 1,
  others: 1,
  start: 3,
};

describe('scheduler properties', () => {
  it('keeps every rule over random interleavings, reaching every kind of decision', () => {
    const seen = new Set<string>();
    fc.assert(fc.property(worldSpec(), commands(MIXED, 80), playNoting(seen)), { numRuns: RUNS });
    // The rules hold only meaningfully if the runs put them to the test: each decision happened.
    expect([...seen].sort()).toEqual([
      'dispatch',
      'dispatch after waiting',
      'read',
      'reject group_busy',
      'reject no_node',
      'reject queue_full',
      'reject queue_timeout',
      'reject wake_failed',
      'reject wake_timeout',
      'stop (idle)',
      'stop (swap)',
      'wake (demand)',
      'wake (keep-warm)',
      'wake (scale-out)',
    ]);
  });

  it('keeps them when refreshes arrive late and nodes crash between them', () => {
    fc.assert(
      fc.property(worldSpec(), commands(LATE, 30), (spec, run) => {
        play(spec, run);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps them on one GPU shared by every node', () => {
    fc.assert(
      fc.property(worldSpec(true), commands(MIXED, 50), (spec, run) => {
        play(spec, run);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps them when operators start nodes among requests: a group never over its max', () => {
    const seen = new Set<string>();
    fc.assert(fc.property(worldSpec(true), commands(STARTS, 60), playNoting(seen)), {
      numRuns: RUNS,
    });
    expect([...seen].filter((kind) => kind.startsWith('st')).sort()).toEqual([
      'start',
      'start (already)',
      'start refused',
      'stop (idle)',
      'stop (swap)',
      'stop (swap, forced)',
    ]);
  });

  it("never sends a node more than its fleet file's slots, its engine reporting more or none", () => {
    // Even nodes' engines report 4 slots under a cap of 1; odd ones report none under a cap of 2.
    const capped = worldSpec().map((spec) => ({
      ...spec,
      nodes: spec.nodes.map((node, index): NodeSpec => {
        const { slots: _engine, ...rest } = node;
        return { ...rest, cap: 1 + (index % 2), ...(index % 2 === 0 ? { slots: 4 } : {}) };
      }),
    }));
    const busy = { ...MIXED, arrive: 8, end: 2 };
    fc.assert(
      fc.property(capped, commands(busy, 60), (spec, run) => {
        play(spec, run);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps them under load on one slot and a short queue', () => {
    const node: NodeSpec = {
      ...{ name: 'n0', model: 'm0', slots: 1, keepWarm: false, scaleOut: false },
      ...{ startMs: 1_000, stopMs: 0, start: 'ok', up: true },
    };
    const spec: WorldSpec = {
      nodes: [node],
      groups: new Map(),
      queue: { max: 2, timeoutMs: 2_000 },
      wakeTimeoutMs: 3_000,
      prefer: 'idle',
      affinity: true,
      models: ['m0'],
    };
    const busy = {
      ...{ arrive: 6, end: 2, 'hang-up': 1, advance: 2 },
      ...{ refresh: 1, crash: 0, others: 1, start: 0 },
    };
    fc.assert(
      fc.property(commands(busy, 40), (run) => {
        play(spec, run);
      }),
      { numRuns: RUNS },
    );
  });
});
