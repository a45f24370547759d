/**
 * Idle stop (GUIDE D26 `idleStop`): a node that has done no work for its idle period, with nothing
 * of ours in flight or waiting, is stopped; its own activity (any replica's traffic) and ours
 * postpone it; keep-warm nodes never are; a failed stop is not retried at once.
 */
import { describe, expect, it } from 'vitest';

import { brief, Harness, running } from '../../../../test/support/scheduling/scheduling.ts';
import { idleStopDue } from './idle-stop.ts';
import { applyView, nodeRecord } from './nodes.ts';

const MINUTE = 60_000;

function idleNode(extra: { keepWarm?: boolean } = {}): Harness {
  return new Harness({ nodes: [{ name: 'a', idleStopMs: MINUTE, ...extra }] }, [
    running('a', { lastActiveAt: 0 }),
  ]);
}

describe('idle stop', () => {
  it('stops a node idle for its period, and says when beforehand', () => {
    const h = idleNode();
    expect(h.scheduler.idleStopAt('a')).toBe(MINUTE);
    expect(h.scheduler.nextDueAt(h.now)).toBe(MINUTE);
    expect(h.advance(MINUTE - 1)).toEqual([]);
    expect(brief(h.advance(1))).toEqual(['stop a (idle)']);
    expect(h.scheduler.idleStopAt('a')).toBeUndefined();
    expect(h.advance(MINUTE)).toEqual([]);
  });

  it('waits for our requests to end, and counts from the end', () => {
    const h = idleNode();
    h.now = 10_000;
    h.arrive(1);
    expect(h.advance(2 * MINUTE)).toEqual([]);
    h.end(1);
    expect(h.scheduler.idleStopAt('a')).toBe(h.now + MINUTE);
    expect(brief(h.advance(MINUTE))).toEqual(['stop a (idle)']);
  });

  it("counts the node's own activity: another replica's traffic keeps it up", () => {
    const h = idleNode();
    h.now = 55_000;
    h.views(running('a', { lastActiveAt: 50_000 }));
    expect(h.advance(5_000)).toEqual([]);
    expect(h.scheduler.idleStopAt('a')).toBe(110_000);
  });

  it('counts from the start of a node never used', () => {
    const h = new Harness({ nodes: [{ name: 'a', idleStopMs: MINUTE }] }, [
      running('a', { runningSince: 30_000 }),
    ]);
    expect(h.scheduler.idleStopAt('a')).toBe(90_000);
  });

  it('never stops a node still loading, however long it takes', () => {
    const h = new Harness({ nodes: [{ name: 'a', idleStopMs: MINUTE }] }, [
      running('a', { ready: false, runningSince: 0 }),
    ]);
    expect(h.advance(10 * MINUTE)).toEqual([]);
    expect(h.scheduler.idleStopAt('a')).toBeUndefined();
  });

  it('never stops a keep-warm node, nor one without the setting', () => {
    expect(idleNode({ keepWarm: true }).advance(10 * MINUTE)).toEqual([]);
    const off = new Harness({ nodes: [{ name: 'a' }] }, [running('a', { lastActiveAt: 0 })]);
    expect(off.advance(10 * MINUTE)).toEqual([]);
    expect(off.scheduler.nextDueAt(off.now)).toBeUndefined();
  });

  it('does not retry a failed stop at once', () => {
    const h = idleNode();
    h.advance(MINUTE);
    expect(h.stopEnded('a', false)).toEqual([]);
    expect(h.advance(1_000)).toEqual([]);
    expect(brief(h.advance(MINUTE))).toEqual(['stop a (idle)']);
  });

  it('is not due with something waiting for the node, or someone else in it', () => {
    const record = nodeRecord(
      { name: 'a', idleStopMs: MINUTE, keepWarm: false, scaleOut: false },
      0,
    );
    applyView(record, running('a', { lastActiveAt: 0 }));
    expect(idleStopDue(record, 0, MINUTE)).toBe(true);
    expect(idleStopDue(record, 1, MINUTE)).toBe(false);
    applyView(record, running('a', { lastActiveAt: 0, busy: 1, observedAt: 1 }));
    expect(idleStopDue(record, 0, MINUTE)).toBe(false);
  });
});
