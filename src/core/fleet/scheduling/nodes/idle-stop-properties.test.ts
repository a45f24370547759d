/**
 * Idle stop against a daemon that samples as a real one does (docs/design.md D33, spec §3), over
 * random interleavings: requests of ours and of another replica (or a direct caller), a sampler
 * tick every 15 s at a random phase, fresh reads that feed the node's record and answer after a
 * random delay, status refreshes that show the record as the last sample left it. Whatever the
 * order, a node is never stopped within its idleStop of a request anyone sent before the read the
 * stop was decided on (a request that starts after it races the stop itself, as on any system),
 * and it is stopped within 2 s of idleStop after the last request, never at the next tick.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';

import { Harness, MODEL } from '../../../../../test/support/scheduling/scheduling.ts';
import type { NodeView } from '../types.ts';

const TICK_MS = 15_000;
const LATE_BOUND_MS = 2_000;

interface Work {
  readonly ours: boolean;
  readonly start: number;
  readonly end: number;
}

interface Case {
  readonly idleStopMs: number;
  readonly phase: number;
  readonly readDelayMs: number;
  readonly refreshMs: number;
  readonly work: readonly Work[];
}

const caseOf: fc.Arbitrary<Case> = fc
  .record({
    idleStopMs: fc.constantFrom(3_000, 8_000, 20_000),
    phase: fc.integer({ min: 0, max: TICK_MS - 1 }),
    readDelayMs: fc.integer({ min: 0, max: 300 }),
    refreshMs: fc.constantFrom(500, 2_000, 5_000),
    steps: fc.array(
      fc.record({
        ours: fc.boolean(),
        gap: fc.integer({ min: 0, max: 12_000 }),
        length: fc.integer({ min: 1, max: 3_000 }),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  })
  .map(({ steps, ...rest }) => {
    let at = 0;
    const work = steps.map(({ ours, gap, length }) => {
      at += gap;
      return { ours, start: at, end: at + length };
    });
    return { ...rest, work };
  });

/** The node's record as the daemon keeps it: samples at ticks and at every read (spec §3). */
class Daemon {
  lastActiveAt = 0;
  private sampledAt = 0;

  constructor(private readonly work: readonly Work[]) {}

  sample(at: number): void {
    // Activity: a request in flight now, or one that ran since the previous sample.
    if (this.work.some((each) => each.start <= at && each.end > this.sampledAt)) {
      this.lastActiveAt = at;
    }
    this.sampledAt = at;
  }
}

function play(spec: Case): void {
  const { idleStopMs, work } = spec;
  const h = new Harness({ nodes: [{ name: 'a', idleStopMs }] });
  const daemon = new Daemon(work);
  const view = (at: number): NodeView => ({
    name: 'a',
    observedAt: at,
    state: 'running',
    ready: true,
    serves: [MODEL],
    runningSince: 0,
    lastActiveAt: daemon.lastActiveAt,
  });
  /** Reads under way: when the daemon samples for each, and when its answer arrives. */
  const reads: { askedAt: number; sampleAt: number; answerAt: number; sampled?: number }[] = [];
  let decidedOn = Number.NEGATIVE_INFINITY;
  let stoppedAt: number | undefined;
  const apply = (actions: ReturnType<Harness['step']>): void => {
    for (const action of actions) {
      if (action.kind === 'read') {
        const delay = spec.readDelayMs;
        const sampleAt = h.now + Math.floor(delay / 2);
        reads.push({ askedAt: h.now, sampleAt, answerAt: h.now + delay });
      } else if (action.kind === 'stop') {
        stoppedAt ??= h.now;
      }
    }
  };
  apply(h.views(view(0)));
  const horizon = Math.max(...work.map((each) => each.end)) + idleStopMs + 10_000;
  let nextTick = spec.phase;
  let nextRefresh = spec.refreshMs;
  const ours = work.filter((each) => each.ours);
  /** Our requests' ids once sent; -1 once ended. */
  const ids = new Map<Work, number>();
  const pendingTimes = (): number[] => [
    h.scheduler.nextDueAt(h.now) ?? horizon,
    nextTick,
    nextRefresh,
    ...reads.map((read) => (read.sampled === undefined ? read.sampleAt : read.answerAt)),
    ...ours.map((each) =>
      ids.has(each) ? (ids.get(each) === -1 ? horizon : each.end) : each.start,
    ),
  ];
  let still = 0;
  for (; stoppedAt === undefined;) {
    const at = Math.max(h.now, Math.min(...pendingTimes()));
    still = at === h.now ? still + 1 : 0;
    if (still > 20) {
      throw new Error(`the simulation never settles at ${at}`);
    }
    if (at >= horizon) {
      break;
    }
    h.now = at;
    for (const each of ours) {
      if (!ids.has(each) && each.start === at) {
        ids.set(each, ids.size + 1);
        apply(h.arrive(ids.get(each) as number));
      } else if (ids.has(each) && ids.get(each) !== -1 && each.end === at) {
        apply(h.end(ids.get(each) as number));
        ids.set(each, -1);
      }
    }
    for (const read of [...reads]) {
      if (read.sampled === undefined && read.sampleAt === at) {
        daemon.sample(at);
        read.sampled = at;
      }
      if (read.sampled !== undefined && read.answerAt === at) {
        reads.splice(reads.indexOf(read), 1);
        decidedOn = Math.max(decidedOn, read.sampled);
        const reading = { askedAt: read.askedAt, lastActiveAt: daemon.lastActiveAt };
        apply(h.step({ kind: 'activity', node: 'a', reading }));
      }
    }
    if (nextTick === at) {
      daemon.sample(at);
      nextTick += TICK_MS;
    }
    if (nextRefresh === at) {
      apply(h.views(view(at)));
      nextRefresh += spec.refreshMs;
    }
    apply(h.advance(0));
  }
  const seen = work.filter((each) => each.start <= decidedOn);
  const last = Math.max(0, ...seen.map((each) => each.end));
  if (stoppedAt === undefined) {
    throw new Error(`never stopped (last request ended at ${last}, horizon ${horizon})`);
  }
  const stop = stoppedAt;
  const early = seen.find((each) => each.end + idleStopMs > stop);
  if (early !== undefined) {
    throw new Error(`stopped at ${stoppedAt}, within idleStop of a request ending ${early.end}`);
  }
  if (stoppedAt > last + idleStopMs + LATE_BOUND_MS) {
    throw new Error(`stopped at ${stoppedAt}, more than 2 s after ${last} + idleStop`);
  }
}

describe('idle stop properties', () => {
  it('never stops a node within idleStop of anyone’s request, and at most 2 s late', () => {
    fc.assert(fc.property(caseOf, play), { numRuns: 300 });
  });
});
