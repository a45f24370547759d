/**
 * The affinity key of a request (docs/design.md D25 `affinity`), pure: a hash of its leading
 * prompt's bytes, read in place from the raw body (the gateway's body scan finds the range in the
 * same pass that finds the model). Hashed: the whole range when it is at most 2 × HASH_EDGE_BYTES,
 * else its first and last HASH_EDGE_BYTES, with the range's length as the seed, so the cost stays
 * flat on a long system prompt while the tail (the first question) still tells sessions apart.
 *
 * The hash is xxHash32 (Collet's XXH32, its published algorithm and constants), not a
 * cryptographic one: a key only picks which node a request prefers, so two prompts that collide
 * cost one prompt-cache miss, never a wrong reply. 32 bits are enough for that: the affinity
 * memory holds at most AFFINITY_KEYS_KEPT (4,096) keys, so a new prompt meets a stored key by
 * chance about once in a million requests. Four 32-bit lanes over 16-byte stripes read through
 * a DataView, with no copy: 2–3× cheaper than the SHA-256 it replaces, measured in
 * bench/body-scan-cost.ts.
 */

/** A byte range [start, end) of the body. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** A multiple of 16 (the stripe), so the first edge ends on a stripe's boundary. */
export const HASH_EDGE_BYTES = 4_096;

const PRIME1 = 0x9e3779b1;
const PRIME2 = 0x85ebca77;
const PRIME3 = 0xc2b2ae3d;
const PRIME4 = 0x27d4eb2f;
const PRIME5 = 0x165667b1;

const rotl = (value: number, bits: number): number => (value << bits) | (value >>> (32 - bits));
const round = (lane: number, word: number): number =>
  Math.imul(rotl((lane + Math.imul(word, PRIME2)) | 0, 13), PRIME1);

/** XXH32's four accumulators, carried from one segment's stripes to the next. */
class Lanes {
  v1: number;
  v2: number;
  v3: number;
  v4: number;

  constructor(seed: number) {
    this.v1 = (seed + PRIME1 + PRIME2) | 0;
    this.v2 = (seed + PRIME2) | 0;
    this.v3 = seed | 0;
    this.v4 = (seed - PRIME1) | 0;
  }

  /** Takes every whole stripe of [start, end); returns where the rest begins. */
  stripes(view: DataView, start: number, end: number): number {
    let { v1, v2, v3, v4 } = this;
    let at = start;
    for (; at + 16 <= end; at += 16) {
      v1 = round(v1, view.getInt32(at, true));
      v2 = round(v2, view.getInt32(at + 4, true));
      v3 = round(v3, view.getInt32(at + 8, true));
      v4 = round(v4, view.getInt32(at + 12, true));
    }
    this.v1 = v1;
    this.v2 = v2;
    this.v3 = v3;
    this.v4 = v4;
    return at;
  }

  merge(): number {
    return (rotl(this.v1, 1) + rotl(this.v2, 7) + rotl(this.v3, 12) + rotl(this.v4, 18)) | 0;
  }
}

/** XXH32 of the bytes of `segments` taken in order, all but the last a multiple of 16 long. */
export function xxh32(body: Uint8Array, segments: readonly ByteRange[], seed: number): number {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let length = 0;
  for (const segment of segments) {
    length += segment.end - segment.start;
  }
  const last = segments[segments.length - 1] ?? { start: 0, end: 0 };
  let hash: number;
  let at = last.start;
  if (length >= 16) {
    const lanes = new Lanes(seed);
    for (const segment of segments) {
      at = lanes.stripes(view, segment.start, segment.end);
    }
    hash = lanes.merge();
  } else {
    hash = (seed + PRIME5) | 0;
  }
  hash = (hash + length) | 0;
  for (; at + 4 <= last.end; at += 4) {
    hash = Math.imul(rotl((hash + Math.imul(view.getInt32(at, true), PRIME3)) | 0, 17), PRIME4);
  }
  for (; at < last.end; at += 1) {
    hash = Math.imul(rotl((hash + Math.imul(view.getUint8(at), PRIME5)) | 0, 11), PRIME1);
  }
  hash = Math.imul(hash ^ (hash >>> 15), PRIME2);
  hash = Math.imul(hash ^ (hash >>> 13), PRIME3);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/** The key: 8 hex digits of the hash of the leading prompt, or undefined when it is empty. */
export function affinityKey(body: Uint8Array, range: ByteRange): string | undefined {
  const length = range.end - range.start;
  if (length <= 0) {
    return undefined;
  }
  const segments =
    length <= 2 * HASH_EDGE_BYTES
      ? [range]
      : [
          { start: range.start, end: range.start + HASH_EDGE_BYTES },
          { start: range.end - HASH_EDGE_BYTES, end: range.end },
        ];
  return xxh32(body, segments, length).toString(16).padStart(8, '0');
}
