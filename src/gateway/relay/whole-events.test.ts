/**
 * Whole events (whole-events.ts): over any split of a stream into chunks, what goes on is the
 * stream itself, in the same order, each piece ending at an event boundary, and nothing is held
 * past the stream's end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { WholeEvents } from './whole-events.ts';

/** Passes `chunks` through, returning each piece that went on, and the rest at the end. */
function pass(chunks: readonly Buffer[]): { pieces: string[]; rest: string } {
  const events = new WholeEvents();
  const pieces: string[] = [];
  for (const chunk of chunks) {
    const piece = events.take(chunk);
    if (piece !== undefined) {
      pieces.push(piece.toString('utf8'));
    }
  }
  return { pieces, rest: events.rest()?.toString('utf8') ?? '' };
}

/** `text` cut at the given offsets. */
function split(text: string, cuts: number[]): Buffer[] {
  const bytes = Buffer.from(text);
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    if (to > from) {
      chunks.push(bytes.subarray(from, to));
      from = to;
    }
  }
  return chunks;
}

describe('WholeEvents', () => {
  it('holds a half-sent event until its blank line, and passes whole ones at once', () => {
    expect(pass([Buffer.from('data: {"n":1}\n\ndata: {"n"'), Buffer.from(':2}\n\n')])).toEqual({
      pieces: ['data: {"n":1}\n\n', 'data: {"n":2}\n\n'],
      rest: '',
    });
    expect(pass([Buffer.from('data: {"n":1}\r\n\r\nda')])).toEqual({
      pieces: ['data: {"n":1}\r\n\r\n'],
      rest: 'da',
    });
  });

  it('passes on a long run with no boundary rather than holding it all', () => {
    const long = Buffer.alloc(70 * 1024, 'x');
    expect(pass([long]).pieces).toHaveLength(1);
  });

  it('property: any split gives back the stream, in order, each piece ending at a boundary', () => {
    const event = fc
      .tuple(fc.stringMatching(/^[a-z "{}:,é0-9]{0,40}$/), fc.constantFrom('\n\n', '\r\n\r\n'))
      .map(([data, end]) => `data: ${data}${end}`);
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 12 }),
        fc.string({ maxLength: 6 }).map((tail) => tail.replace(/[\r\n]/g, '')),
        fc.array(fc.nat(), { maxLength: 20 }),
        (events, tail, cuts) => {
          const text = `${events.join('')}${tail}`;
          const { pieces, rest } = pass(split(text, cuts));
          expect(pieces.join('') + rest).toBe(text);
          for (const piece of pieces) {
            expect(piece).toMatch(/(\n\n|\r\n\r\n)$/);
          }
          expect(rest).toBe(tail);
        },
      ),
      { numRuns: 300 },
    );
  });
});
