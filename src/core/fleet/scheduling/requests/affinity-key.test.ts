/**
 * The affinity key's hash (docs/design.md D25 `affinity`): XXH32 as published, read in place at any
 * offset, flat in cost on a long prompt yet telling apart prompts that differ at either end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { affinityKey, HASH_EDGE_BYTES, xxh32 } from './affinity-key.ts';

const whole = (body: Uint8Array): { start: number; end: number } => ({
  start: 0,
  end: body.length,
});

/** xxhsum's sanity buffer: byte i is the top byte of PRIME32 × PRIME64^i (mod 2^64). */
function sanityBuffer(length: number): Uint8Array {
  const buffer = new Uint8Array(length);
  let generator = 2_654_435_761n;
  for (let index = 0; index < length; index += 1) {
    buffer[index] = Number(generator >> 56n);
    generator = (generator * 11_400_714_785_074_694_797n) & 0xffff_ffff_ffff_ffffn;
  }
  return buffer;
}

describe('xxh32', () => {
  it("gives the reference implementation's values", () => {
    // xxhsum's own sanity check (seed 0 and seed PRIME32), and python-xxhash's example.
    const buffer = sanityBuffer(222);
    const at = (length: number, seed: number): number =>
      xxh32(buffer, [{ start: 0, end: length }], seed);
    expect([0, 1, 14, 222].map((length) => at(length, 0))).toEqual([
      0x02cc5d05, 0xcf65b03e, 0x1208e7e2, 0x5bd11dbd,
    ]);
    expect([0, 1, 14, 222].map((length) => at(length, 2_654_435_761))).toEqual([
      0x36b78ae7, 0xb4545aa4, 0x6af1d1fe, 0x58803c5f,
    ]);
    const text = new TextEncoder().encode('Nobody inspects the spammish repetition');
    expect(xxh32(text, [whole(text)], 0)).toBe(0xe2293b2f);
  });

  it('hashes segments as their bytes laid end to end', () => {
    const buffer = sanityBuffer(222);
    expect(
      xxh32(
        buffer,
        [
          { start: 0, end: 48 },
          { start: 48, end: 222 },
        ],
        7,
      ),
    ).toBe(xxh32(buffer, [whole(buffer)], 7));
  });
});

describe('affinityKey', () => {
  it('is the same for the same bytes at any offset of any buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.nat(7), (bytes, pad) => {
        const padded = new Uint8Array(bytes.length + pad + 4).fill(0xff);
        padded.set(bytes, pad + 1);
        // An unaligned view into a larger buffer, as a body's Buffer often is.
        const view = padded.subarray(1);
        expect(affinityKey(view, { start: pad, end: pad + bytes.length })).toBe(
          affinityKey(bytes, whole(bytes)),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('is none for an empty range', () => {
    expect(affinityKey(new Uint8Array(4), { start: 2, end: 2 })).toBeUndefined();
  });

  it('reads only the edges of a long range, and its length', () => {
    const long = new Uint8Array(5 * HASH_EDGE_BYTES).fill(0x61);
    const key = affinityKey(long, whole(long));
    const middle = long.slice();
    middle[2 * HASH_EDGE_BYTES] = 0x62;
    expect(affinityKey(middle, whole(middle))).toBe(key);
    for (const at of [0, HASH_EDGE_BYTES - 1, long.length - HASH_EDGE_BYTES, long.length - 1]) {
      const changed = long.slice();
      changed[at] = 0x62;
      expect(affinityKey(changed, whole(changed))).not.toBe(key);
    }
    expect(affinityKey(long, { start: 0, end: long.length - 1 })).not.toBe(key);
  });

  it('tells apart distinct prompts: no collision among 20,000 of them', () => {
    const keys = new Set<string | undefined>();
    const encoder = new TextEncoder();
    for (let index = 0; index < 20_000; index += 1) {
      const prompt = encoder.encode(`[{"role":"user","content":"question ${index}"}`);
      keys.add(affinityKey(prompt, whole(prompt)));
    }
    expect(keys.size).toBe(20_000);
  });
});
