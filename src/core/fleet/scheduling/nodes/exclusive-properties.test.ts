/**
 * Exclusive and persistent groups (docs/design.md D31) over random interleavings of requests,
 * ends, hang-ups, refreshes (some late), crashes, others' load and operators' starts (forced or
 * not), in a fleet of an exclusive group (persistent or not), a plain group, a persistent group
 * and nodes in none. The simulated world (test/support/scheduling/) checks at every action: never
 * more than `max` of a group; an exclusive member never up beside an up member of a non-persistent
 * other group (at its own start; at every start when it is not persistent); a persistent group's
 * member never stopped for another group's start; and every request and start answered, once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { fitsBeside } from '../../../../../test/support/scheduling/exclusive-rules.ts';
import type {
  NodeSpec,
  WorldSpec,
} from '../../../../../test/support/scheduling/scheduling-world.ts';
import {
  commands,
  decision,
  nodeSpecOf,
  play,
  type Weights,
} from '../../../../../test/support/scheduling/world-runs.ts';
import type { Action, GroupSettings } from '../types.ts';

const RUNS = 200;
const GROUPS = ['x', 'p', 'q', undefined] as const;

const nodeSpec = nodeSpecOf(fc.constantFrom(...GROUPS));

const group = (extra: Partial<GroupSettings>): fc.Arbitrary<GroupSettings> =>
  fc
    .record({
      max: fc.integer({ min: 1, max: 2 }),
      minResidencyMs: fc.constantFrom(0, 3_000, 20_000),
      exclusive: fc.boolean(),
      persistent: fc.boolean(),
    })
    .map((settings) => ({ ...settings, ...extra }));

const worldSpec: fc.Arbitrary<WorldSpec> = fc
  .record({
    nodes: fc.array(nodeSpec, { minLength: 2, maxLength: 5 }),
    x: group({ exclusive: true }),
    p: group({ persistent: false }),
    q: group({ persistent: true }),
    queue: fc.record({
      max: fc.constantFrom(0, 2, 8),
      timeoutMs: fc.constantFrom(2_000, 10_000, 60_000),
    }),
    wakeTimeoutMs: fc.constantFrom(3_000, 20_000),
    prefer: fc.constantFrom('idle' as const, 'active' as const),
  })
  .map(({ nodes, x, p, q, ...rest }) => {
    const groups = new Map([
      ['x', x],
      ['p', p],
      ['q', q],
    ]);
    // The world starts obeying the rules, as a gateway finds a fleet that obeys them.
    const up: NodeSpec[] = [];
    const fitted = nodes.map((node, index): NodeSpec => {
      const named = { ...node, name: `n${index}` };
      const max = named.group === undefined ? Infinity : (groups.get(named.group)?.max ?? 1);
      const fits =
        up.filter((other) => other.group === named.group && named.group !== undefined).length <
          max && fitsBeside(named, up, groups);
      const placed = { ...named, up: named.up && fits };
      if (placed.up) {
        up.push(placed);
      }
      return placed;
    });
    const models = [...new Set(fitted.map((node) => node.model))];
    return { ...rest, affinity: true, nodes: fitted, groups, models };
  });

const MIXED: Weights = {
  ...{ arrive: 5, end: 3, 'hang-up': 1, advance: 3 },
  ...{ refresh: 2, crash: 1, others: 1, start: 2 },
};

/** A stop for another group's start (an exclusive clearing), or within its own group (a swap). */
function kindOf(action: Action, spec: WorldSpec): string {
  if (action.kind !== 'stop' || action.reason !== 'swap') {
    return decision(action);
  }
  const own = spec.nodes.find((node) => node.name === action.node)?.group;
  const forced = action.forced === true ? ', forced' : '';
  return own === action.group ? `stop (swap${forced})` : `stop (exclusive${forced})`;
}

describe('exclusive and persistent group properties', () => {
  it('keeps every rule over random interleavings, reaching exclusive stops and refusals', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(worldSpec, commands(MIXED, 60), (spec, run) => {
        play(spec, run, (action) => seen.add(kindOf(action, spec)));
      }),
      { numRuns: RUNS },
    );
    // The rules hold meaningfully only if the runs put them to the test.
    expect([...seen].filter((kind) => kind.startsWith('st') || kind.includes('group'))).toEqual(
      expect.arrayContaining([
        'start',
        'start refused',
        'stop (exclusive)',
        'stop (exclusive, forced)',
        'stop (swap)',
        'stop (swap, forced)',
        'reject group_busy',
      ]),
    );
  });
});
