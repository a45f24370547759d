/**
 * Idle stop (docs/design.md D26 `idleStop`): a node that has done no work for its idle period, with
 * nothing of ours in flight or waiting, is stopped; its own activity (any replica's traffic) and
 * ours postpone it; keep-warm nodes never are; a failed stop is not retried at once.
 */
import { describe, expect, it } from 'vitest';

import { brief, Harness, running } from '../../../../../test/support/scheduling/scheduling.ts';
import type { Action } from '../types.ts';
import { ACTIVITY_READ_EVERY_MS, idleStopDue } from './idle-stop.ts';
import { applyView, nodeRecord } from './nodes.ts';

const MINUTE = 60_000;

/** A node idle since 0; its fresh reads find `activeAt` (what its record says when read). */
function idleNode(extra: { keepWarm?: boolean } = {}, activeAt: () => number = () => 0): Harness {
  const h = new Harness({ nodes: [{ name: 'a', idleStopMs: MINUTE, ...extra }] });
  h.reads = activeAt;
  h.views(running('a', { lastActiveAt: 0 }));
  return h;
}

/** What was decided, fresh reads left out. */
function decided(actions: readonly Action[]): string[] {
  return brief(actions).filter((line) => !line.startsWith('read '));
}

describe('idle stop', () => {
  it('stops a node idle for its period, and says when beforehand', () => {
    const h = idleNode();
    expect(h.scheduler.idleStopAt('a')).toBe(MINUTE);
    // The next fresh read is due first; the stop itself is decided on the one at its time.
    expect(h.scheduler.nextDueAt(h.now)).toBe(ACTIVITY_READ_EVERY_MS);
    expect(decided(h.advance(MINUTE - 1))).toEqual([]);
    expect(decided(h.advance(1))).toEqual(['stop a (idle)']);
    expect(h.scheduler.idleStopAt('a')).toBeUndefined();
    expect(decided(h.advance(MINUTE))).toEqual([]);
  });

  it('waits for our requests to end, and counts from the end', () => {
    const h = idleNode();
    h.now = 10_000;
    h.arrive(1);
    expect(decided(h.advance(2 * MINUTE))).toEqual([]);
    h.end(1);
    expect(h.scheduler.idleStopAt('a')).toBe(h.now + MINUTE);
    expect(decided(h.advance(MINUTE))).toEqual(['stop a (idle)']);
  });

  it("counts the node's own activity: another replica's traffic keeps it up", () => {
    const h = idleNode();
    h.now = 55_000;
    h.views(running('a', { lastActiveAt: 50_000 }));
    expect(decided(h.advance(5_000))).toEqual([]);
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
    expect(decided(h.advance(10 * MINUTE))).toEqual([]);
    expect(h.scheduler.idleStopAt('a')).toBeUndefined();
  });

  it('never stops a keep-warm node, nor one without the setting', () => {
    expect(decided(idleNode({ keepWarm: true }).advance(10 * MINUTE))).toEqual([]);
    const off = new Harness({ nodes: [{ name: 'a' }] }, [running('a', { lastActiveAt: 0 })]);
    expect(decided(off.advance(10 * MINUTE))).toEqual([]);
    expect(off.scheduler.nextDueAt(off.now)).toBeUndefined();
  });

  it('does not retry a failed stop at once', () => {
    const h = idleNode();
    h.advance(MINUTE);
    expect(h.stopEnded('a', false)).toEqual([]);
    expect(decided(h.advance(1_000))).toEqual([]);
    expect(decided(h.advance(MINUTE))).toEqual(['stop a (idle)']);
  });

  it('is not due with something waiting for the node, or someone else in it', () => {
    const record = nodeRecord(
      { name: 'a', idleStopMs: MINUTE, keepWarm: false, scaleOut: false },
      0,
    );
    applyView(record, running('a', { lastActiveAt: 0 }));
    record.freshAt = MINUTE;
    expect(idleStopDue(record, 0, MINUTE)).toBe(true);
    expect(idleStopDue(record, 1, MINUTE)).toBe(false);
    applyView(record, running('a', { lastActiveAt: 0, busy: 1, observedAt: MINUTE + 1 }));
    expect(idleStopDue(record, 0, MINUTE + 1)).toBe(false);
  });

  it('decides a stop only on a read asked once it fell due, which may put it off', () => {
    // Another replica's request at 59 s, which the node's status has not shown yet.
    let activeAt = 0;
    const h = idleNode({}, () => activeAt);
    h.now = 59_000;
    activeAt = 59_000;
    // The last read before the due time saw it; the one at the due time finds nothing newer.
    expect(decided(h.advance(ACTIVITY_READ_EVERY_MS))).toEqual([]);
    expect(h.scheduler.idleStopAt('a')).toBe(59_000 + MINUTE);
    expect(decided(h.advance(MINUTE - ACTIVITY_READ_EVERY_MS))).toEqual(['stop a (idle)']);
  });

  it('never stops without a fresh read, and reads a quiet node every second', () => {
    const h = new Harness({ nodes: [{ name: 'a', idleStopMs: MINUTE }] }, [
      running('a', { lastActiveAt: 0 }),
    ]);
    expect(brief(h.log)).toEqual(['read a']);
    // The read never answered: nothing is stopped, and no second read is asked meanwhile.
    expect(brief(h.advance(2 * MINUTE))).toEqual([]);
    // It failed: the stop is overdue, so one more at once; that one failing too, a second later.
    expect(brief(h.step({ kind: 'activity', node: 'a' }))).toEqual(['read a']);
    expect(brief(h.step({ kind: 'activity', node: 'a' }))).toEqual([]);
    expect(brief(h.advance(ACTIVITY_READ_EVERY_MS))).toEqual(['read a']);
    const reading = { askedAt: h.now, lastActiveAt: 0 };
    expect(brief(h.step({ kind: 'activity', node: 'a', reading }))).toEqual(['stop a (idle)']);
  });

  it('does not read a node while requests of ours run on it', () => {
    const h = idleNode();
    h.arrive(1);
    expect(h.scheduler.nextDueAt(h.now)).toBeUndefined();
    expect(brief(h.advance(10 * ACTIVITY_READ_EVERY_MS))).toEqual([]);
  });
});
