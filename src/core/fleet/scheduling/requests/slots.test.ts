/**
 * Slot accounting and Retry-After (docs/design.md D25): load, free slots, the free rate, whole
 * seconds ≥ 1.
 */
import { describe, expect, it } from 'vitest';

import {
  FALLBACK_RETRY_S,
  FreeRecord,
  FREES_KEPT,
  hasFreeSlot,
  MAX_RETRY_S,
  othersAtView,
  oursPeak,
  peakSent,
  retryAfterSeconds,
  seemsFree,
} from './slots.ts';

describe('slots', () => {
  it('holds back a node only when our own requests take its known slots', () => {
    expect(hasFreeSlot({ inFlight: 1, external: 0, slots: 2 })).toBe(true);
    // Others' requests, read from a scrape that may be seconds old, never close it.
    expect(hasFreeSlot({ inFlight: 0, external: 4, slots: 2 })).toBe(true);
    expect(hasFreeSlot({ inFlight: 2, external: 0, slots: 2 })).toBe(false);
    expect(hasFreeSlot({ inFlight: 100, external: 9, slots: undefined })).toBe(true);
  });

  it("looks free only when ours and others' together leave a slot", () => {
    expect(seemsFree({ inFlight: 1, external: 0, slots: 2 })).toBe(true);
    expect(seemsFree({ inFlight: 1, external: 1, slots: 2 })).toBe(false);
    expect(seemsFree({ inFlight: 9, external: 9, slots: undefined })).toBe(true);
  });

  it("reads others' load as busy beyond the most of ours since the scrape", () => {
    const peak = oursPeak();
    peakSent(peak, 1);
    expect(othersAtView(peak, 3, 1)).toBe(2);
    expect(othersAtView(peak, undefined, 3)).toBe(0);
    // Four of ours were in flight at some point since that view; two have ended.
    for (const ours of [1, 2, 3, 4]) {
      peakSent(peak, ours);
    }
    // A new figure of 4 counts ours as they were at their highest: nobody else's.
    expect(othersAtView(peak, 4, 2)).toBe(0);
    // The same figure again may be the same scrape: still nobody else's, though ours are now 0.
    expect(othersAtView(peak, 4, 0)).toBe(0);
    // A new figure after a quiet spell of ours (peak 0 since the last view) is others' work.
    expect(othersAtView(peak, 3, 0)).toBe(3);
  });

  it('keeps a bounded record of frees and a rate over the recent window', () => {
    const frees = new FreeRecord();
    for (let at = 0; at < 100_000; at += 500) {
      frees.add(at);
    }
    expect(frees.size).toBe(FREES_KEPT);
    // Two per second: the 32 kept over the 15.5 s since the oldest of them.
    expect(frees.rate(99_500)).toBeCloseTo(32 / 15.5, 6);
    expect(frees.rate(99_500 + 120_000)).toBe(0);
    expect(new FreeRecord().rate(0)).toBe(0);
  });

  it('answers whole seconds from 1 up to a cap, and a fallback without a rate', () => {
    expect(retryAfterSeconds(2, 5)).toBe(3);
    expect(retryAfterSeconds(100, 1)).toBe(1);
    expect(retryAfterSeconds(0.001, 50)).toBe(MAX_RETRY_S);
    expect(retryAfterSeconds(0, 5)).toBe(FALLBACK_RETRY_S);
  });
});
