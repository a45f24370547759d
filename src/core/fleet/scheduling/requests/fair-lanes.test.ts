/** Who goes next among the callers waiting for one model (docs/design.md D29), by example. */
import { describe, expect, it } from 'vitest';

import type { CallerShare } from '../types.ts';
import { callerShare, FairLanes, type Laned, type MayRun } from './fair-lanes.ts';

const anyone = (): boolean => true;

function drain(lanes: FairLanes<Laned>, mayRun: MayRun = anyone): number[] {
  const order: number[] = [];
  for (let next = lanes.next(mayRun); next !== undefined; next = lanes.next(mayRun)) {
    lanes.take(next);
    order.push(next.id);
  }
  return order;
}

describe('FairLanes', () => {
  it('is first in, first out without callers', () => {
    const lanes = new FairLanes<Laned>();
    [3, 1, 2].forEach((id, at) => {
      lanes.add({ id, enqueuedAt: at });
    });
    expect(drain(lanes)).toEqual([3, 1, 2]);
  });

  it('gives high, normal and low 4, 2 and 1 turns in 7, first in, first out within each', () => {
    const shares: CallerShare[] = (['high', 'normal', 'low'] as const).map((priority) =>
      callerShare({ name: priority, priority }),
    );
    const lanes = new FairLanes<Laned>();
    // The low caller's backlog came first: it still gets only its share.
    let id = 0;
    for (const share of [...shares].reverse()) {
      for (let n = 0; n < 8; n += 1) {
        id += 1;
        lanes.add({ id, enqueuedAt: id, caller: share });
      }
    }
    const first = drain(lanes)
      .slice(0, 14)
      .map((n) => (n <= 8 ? 'L' : n <= 16 ? 'N' : 'H'));
    expect(first.filter((c) => c === 'H')).toHaveLength(8);
    expect(first.filter((c) => c === 'N')).toHaveLength(4);
    expect(first.filter((c) => c === 'L')).toHaveLength(2);
  });

  it('lets a newcomer go next after a long backlog, and passes over a caller at its limit', () => {
    const agent = callerShare({ name: 'agent', priority: 'normal', concurrency: 1 });
    const person = callerShare({ name: 'person', priority: 'normal' });
    const lanes = new FairLanes<Laned>();
    for (let id = 1; id <= 20; id += 1) {
      lanes.add({ id, enqueuedAt: id, caller: agent });
    }
    const first = lanes.next(anyone);
    expect(first?.id).toBe(1);
    lanes.take(first as Laned);
    lanes.add({ id: 21, enqueuedAt: 21, caller: person });
    expect(lanes.next(anyone)?.id).toBe(21);
    // The agent at its limit: the person goes, then nobody may.
    const busy = (caller: CallerShare | undefined): boolean => caller?.name !== 'agent';
    expect(drain(lanes, busy)).toEqual([21]);
    expect(lanes.next(anyone)?.id).toBe(2);
  });

  it('frees a hung-up place at once', () => {
    const share = callerShare({ name: 'a', priority: 'low' });
    const lanes = new FairLanes<Laned>();
    const gone = { id: 1, enqueuedAt: 0, caller: share };
    lanes.add(gone);
    lanes.add({ id: 2, enqueuedAt: 1, caller: share });
    lanes.remove(gone);
    expect(drain(lanes)).toEqual([2]);
  });
});
