/**
 * A log slice leaves svc with every secret masked byte for byte, however a cursor cuts the log:
 * a secret the slice's end cuts is held back for the next read, the rest of one begun before the
 * slice's start is masked from the text before it, and every read moves the cursor on.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { LogsResponse } from '../contract/schemas.ts';
import { contextBytes, redactLogSlice, sliceStart } from './redact-log-slice.ts';

/** readLogSlice over an in-memory ASCII log: `limit` bytes from `offset`. */
function slice(log: string, offset: number, limit: number): LogsResponse {
  const content = log.slice(offset, offset + limit);
  return { content, nextOffset: offset + content.length, size: log.length };
}

/** What the gateway does per read: the slice, the text before it where needed, the redaction. */
function read(
  log: string,
  offset: number,
  limit: number,
  secrets: readonly string[],
): LogsResponse {
  const raw = slice(log, offset, limit);
  const bytes = contextBytes(raw, secrets);
  const before = log.slice(sliceStart(raw) - bytes, sliceStart(raw));
  return redactLogSlice(raw, secrets, before);
}

/** The log as a reader following nextOffset from `offset` sees it, `limits` cycled per read. */
function follow(
  log: string,
  offset: number,
  limits: readonly number[],
  secrets: readonly string[],
): string {
  let text = '';
  let cursor = offset;
  for (let step = 0; cursor < log.length; step += 1) {
    const reply = read(log, cursor, limits[step % limits.length] ?? 1, secrets);
    // Every read moves on: a reader can never be stuck on one place.
    expect(reply.nextOffset).toBeGreaterThan(cursor);
    expect(sliceStart(reply)).toBe(cursor);
    text += reply.content;
    cursor = reply.nextOffset;
  }
  return text;
}

/** Where each secret occurs in `log`, as [start, end). */
function occurrences(log: string, secrets: readonly string[]): [number, number][] {
  const found: [number, number][] = [];
  for (const secret of secrets) {
    for (let at = log.indexOf(secret); at >= 0; at = log.indexOf(secret, at + 1)) {
      found.push([at, at + secret.length]);
    }
  }
  return found;
}

const KEY = 'engine-key-0123';
const TOKEN = 'gw-token-9876';

describe('redactLogSlice', () => {
  it('masks each secret byte for byte, so the slice still starts where it did', () => {
    const raw = slice(`x\nkey=${KEY} token=${TOKEN}\nend\n`, 2, 1_000);
    const reply = redactLogSlice(raw, [KEY, TOKEN], '');
    expect(reply.content).toBe(
      `key=${'*'.repeat(KEY.length)} token=${'*'.repeat(TOKEN.length)}\nend\n`,
    );
    expect(reply.nextOffset).toBe(raw.nextOffset);
    expect(sliceStart(reply)).toBe(2);
    expect(Buffer.byteLength(reply.content)).toBe(Buffer.byteLength(raw.content));
  });

  it("masks a secret inside a longer one without leaving the longer one's rest", () => {
    const reply = redactLogSlice(slice(`a ${KEY}-more b`, 0, 100), [KEY, `${KEY}-more`], '');
    expect(reply.content).toBe(`a ${'*'.repeat(KEY.length + 5)} b`);
  });

  it('holds back a secret the end cuts, and the next read masks it whole', () => {
    const log = `line one key=${KEY} after\n`;
    const first = read(log, 0, 'line one key=engine'.length, [KEY]);
    expect(first.content).toBe('line one key=');
    expect(first.nextOffset).toBe('line one key='.length);
    const second = read(log, first.nextOffset, 100, [KEY]);
    expect(second.content).toBe(`${'*'.repeat(KEY.length)} after\n`);
  });

  it('masks the rest of a secret begun before an offset a caller chose, told by the text before', () => {
    const log = `key=${KEY} after\n`;
    const offset = 'key=engine-'.length;
    // As much of what precedes it as a secret's beginning can be: here all 11 bytes.
    expect(contextBytes(slice(log, offset, 100), [KEY])).toBe(offset);
    expect(read(log, offset, 100, [KEY]).content).toBe(`${'*'.repeat(KEY.length - 7)} after\n`);
    // The same head after text that does not begin the key is the log's own.
    const other = 'key=motor--key-0123 after\n';
    expect(read(other, offset, 100, [KEY]).content).toBe('key-0123 after\n');
    // With the text before it unknown, a head that could finish a secret is masked.
    expect(redactLogSlice(slice(other, offset, 100), [KEY]).content).toBe(
      `${'*'.repeat(8)} after\n`,
    );
  });

  it('needs no text before a slice that starts the log or whose head finishes no secret', () => {
    expect(contextBytes(slice(`${KEY}\n`, 0, 100), [KEY])).toBe(0);
    expect(contextBytes(slice(`ab\n${KEY}\n`, 3, 100), [KEY])).toBe(0);
    expect(contextBytes(slice('ab', 2, 100), [KEY])).toBe(0);
  });

  it('masks whole a slice that is nothing but the start of a secret, and moves on', () => {
    const log = `${KEY}\n`;
    const reply = read(log, 0, 4, [KEY]);
    expect(reply).toMatchObject({ content: '****', nextOffset: 4 });
    expect(follow(log, 0, [4], [KEY])).toBe(`${'*'.repeat(KEY.length)}\n`);
  });

  it('leaves a slice alone when there are no secrets', () => {
    const raw = slice('plain\n', 0, 100);
    expect(redactLogSlice(raw, [], '')).toBe(raw);
    expect(redactLogSlice(raw, [''], '')).toBe(raw);
  });

  it('shows no secret character whatever the cursor and the limits', () => {
    // Secrets of distinct characters from disjoint alphabets: their occurrences never overlap.
    const secret = (alphabet: string) =>
      fc
        .shuffledSubarray(Array.from(alphabet), { minLength: 2, maxLength: alphabet.length })
        .map((chars) => chars.join(''));
    fc.assert(
      fc.property(
        secret('abcdef'),
        secret('ghijkl'),
        fc.array(fc.constantFrom(...Array.from('abcdefghijkl \nxyz')), { maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 5 }),
        fc.nat({ max: 80 }),
        (first, second, filler, places, limits, start) => {
          let log = filler.join('');
          for (const [index, place] of places.entries()) {
            const at = Math.min(place, log.length);
            log = `${log.slice(0, at)}${index % 2 === 0 ? first : second}${log.slice(at)}`;
          }
          const offset = Math.min(start, log.length);
          const seen = follow(log, offset, limits, [first, second]);
          expect(seen).toHaveLength(log.length - offset);
          for (const [from, to] of occurrences(log, [first, second])) {
            for (let at = Math.max(from, offset); at < to; at += 1) {
              expect(seen[at - offset]).toBe('*');
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
