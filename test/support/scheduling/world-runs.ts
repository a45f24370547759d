/**
 * Random runs of the scheduler's simulated world (scheduling-world.ts) for fast-check properties:
 * weighted command mixes, one run played to its end, and each decision's kind in a word, so a
 * property can say which decisions its runs must reach.
 */
import fc from 'fast-check';

import type { Action } from '../../../src/core/fleet/scheduling/types.ts';
import {
  type Command,
  type NodeSpec,
  SchedulingWorld,
  type WorldSpec,
} from './scheduling-world.ts';

/** A node of model m0 or m1 in the group `group` draws, named by its place once the fleet is drawn. */
export function nodeSpecOf(group: fc.Arbitrary<string | undefined>): fc.Arbitrary<NodeSpec> {
  return fc.record({
    name: fc.constant(''),
    model: fc.constantFrom('m0', 'm1'),
    slots: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    cap: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }),
    group,
    idleStopMs: fc.option(fc.constantFrom(5_000, 30_000), { nil: undefined }),
    keepWarm: fc.boolean(),
    scaleOut: fc.boolean(),
    startMs: fc.integer({ min: 100, max: 5_000 }),
    stopMs: fc.integer({ min: 0, max: 3_000 }),
    start: fc.constantFrom('ok', 'ok', 'ok', 'crash', 'hang'),
    up: fc.boolean(),
  }) as fc.Arbitrary<NodeSpec>;
}

export type Weights = Readonly<Record<Command['kind'], number>>;

export function commands(weights: Weights, maxLength: number): fc.Arbitrary<Command[]> {
  const arbitraries: Record<Command['kind'], fc.Arbitrary<Command>> = {
    arrive: fc.record(
      {
        kind: fc.constant('arrive' as const),
        model: fc.oneof(
          { weight: 9, arbitrary: fc.nat(1) },
          { weight: 1, arbitrary: fc.constant(-1) },
        ),
        streaming: fc.boolean(),
        key: fc.nat(2),
      },
      { requiredKeys: ['kind', 'model', 'streaming'] },
    ),
    end: fc.record({ kind: fc.constant('end' as const), pick: fc.nat(7) }),
    'hang-up': fc.record({ kind: fc.constant('hang-up' as const), pick: fc.nat(7) }),
    advance: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(50, 500, 2_000, 8_000, 40_000),
    }),
    refresh: fc.record({ kind: fc.constant('refresh' as const), lag: fc.nat(3) }),
    crash: fc.record({ kind: fc.constant('crash' as const), node: fc.nat(3) }),
    others: fc.record({ kind: fc.constant('others' as const), node: fc.nat(3), busy: fc.nat(2) }),
    start: fc.record({ kind: fc.constant('start' as const), node: fc.nat(3), force: fc.boolean() }),
  };
  const weighted = Object.entries(weights)
    .filter(([, weight]) => weight > 0)
    .map(([kind, weight]) => ({ weight, arbitrary: arbitraries[kind as Command['kind']] }));
  return fc.array(fc.oneof(...weighted), { maxLength, size: 'medium' });
}

/** Runs the commands in a fresh world, then lets every caller be answered. */
export function play(
  spec: WorldSpec,
  run: readonly Command[],
  observe?: (action: Action) => void,
): void {
  const world = new SchedulingWorld(spec, observe);
  for (const next of run) {
    world.run(next);
  }
  world.finish();
}

/** One decision's kind, in a word or two: what the runs must reach. */
export function decision(action: Action): string {
  switch (action.kind) {
    case 'dispatch':
      return `dispatch${action.waitedMs > 0 ? ' after waiting' : ''}`;
    case 'reject':
      return `reject ${action.reason}`;
    case 'wake':
      return `wake (${action.cause})`;
    case 'read':
      return 'read';
    case 'stop':
      return `stop (${action.reason}${action.forced === true ? ', forced' : ''})`;
    case 'start':
      return `start${action.already === true ? ' (already)' : ''}`;
    case 'start-refused':
      return 'start refused';
  }
}

/** Runs `run` over `spec`, adding each decision to `seen`. */
export function playNoting(seen: Set<string>): (spec: WorldSpec, run: readonly Command[]) => void {
  return (spec, run) => {
    play(spec, run, (action) => seen.add(decision(action)));
  };
}
