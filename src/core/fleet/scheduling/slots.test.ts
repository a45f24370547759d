/** Slot accounting and Retry-After (GUIDE D25): load, free slots, the free rate, whole seconds ≥ 1. */
import { describe, expect, it } from 'vitest';

import {
  externalLoad,
  FALLBACK_RETRY_S,
  FreeRecord,
  FREES_KEPT,
  hasFreeSlot,
  MAX_RETRY_S,
  retryAfterSeconds,
} from './slots.ts';

describe('slots', () => {
  it('holds back a node only when its known slots are taken', () => {
    expect(hasFreeSlot({ inFlight: 1, external: 0, slots: 2 })).toBe(true);
    expect(hasFreeSlot({ inFlight: 1, external: 1, slots: 2 })).toBe(false);
    expect(hasFreeSlot({ inFlight: 100, external: 9, slots: undefined })).toBe(true);
  });

  it("reads others' load as busy beyond ours", () => {
    expect(externalLoad(3, 1)).toBe(2);
    expect(externalLoad(1, 3)).toBe(0);
    expect(externalLoad(undefined, 3)).toBe(0);
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
