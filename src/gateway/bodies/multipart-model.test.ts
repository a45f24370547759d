/**
 * A multipart form's `model` field (docs/design.md D31 "Forms"): the boundary from Content-Type,
 * quoted or not; the field found first, last or between files, whatever the chunking (fast-check
 * over every way to split the body, CRLFs and boundaries split included); a form without one
 * missing; and the reader's bound and byte-for-byte body.
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { FORM_MODEL_BOUND, readForm, wholeForm } from './form-body.ts';
import { formBoundary, scanForm } from './multipart-model.ts';

const BOUNDARY = '----svcBoundary7MA4YWxkTrZu0gW';

interface Part {
  readonly name: string;
  readonly value: Buffer | string;
  readonly filename?: string;
}

function form(parts: readonly Part[], boundary = BOUNDARY, preamble = ''): Buffer {
  const pieces: Buffer[] = [Buffer.from(preamble === '' ? '' : `${preamble}\r\n`)];
  for (const part of parts) {
    const file = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const type = part.filename === undefined ? '' : '\r\nContent-Type: audio/wav';
    pieces.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${file}${type}\r\n\r\n`,
      ),
      Buffer.from(part.value),
      Buffer.from('\r\n'),
    );
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

/** Scans `body` as it arrives in the given pieces, as the reader does: the first answer. */
function scanInPieces(body: Buffer, cuts: readonly number[]): string | undefined {
  const ends = [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b);
  for (const end of [...ends, body.length]) {
    const found = scanForm(body.subarray(0, end), BOUNDARY, end === body.length);
    if (found.kind === 'model') {
      return found.model;
    }
    if (found.kind === 'missing') {
      return undefined;
    }
  }
  throw new Error('never settled');
}

const AUDIO = Buffer.from(Array.from({ length: 3_000 }, (_, index) => (index * 7) % 256));

describe('formBoundary', () => {
  it.each([
    [`multipart/form-data; boundary=${BOUNDARY}`, BOUNDARY],
    ['Multipart/Form-Data; charset=utf-8; BOUNDARY="a b;c"', 'a b;c'],
    ['multipart/form-data;boundary="q\\"x"', 'q"x'],
  ])('reads %s', (type, boundary) => {
    expect(formBoundary(type)).toBe(boundary);
  });

  it('answers undefined for JSON and no type, and refuses a form with no boundary', () => {
    expect(formBoundary('application/json')).toBeUndefined();
    expect(formBoundary(undefined)).toBeUndefined();
    expect(() => formBoundary('multipart/form-data')).toThrow(/names no boundary/);
  });
});

describe('scanForm', () => {
  it('finds the model first, last, or between files, past a preamble', () => {
    const file = { name: 'file', value: AUDIO, filename: 'a.wav' };
    const model = { name: 'model', value: 'whisper-1' };
    expect(scanInPieces(form([model, file]), [])).toBe('whisper-1');
    expect(scanInPieces(form([file, { name: 'language', value: 'en' }, model]), [])).toBe(
      'whisper-1',
    );
    expect(scanInPieces(form([file, model, file], BOUNDARY, 'a preamble'), [])).toBe('whisper-1');
  });

  it('says a form without a model field is missing it, at its close or at its end', () => {
    expect(scanForm(form([{ name: 'modelx', value: 'm' }]), BOUNDARY, false)).toEqual({
      kind: 'missing',
    });
    expect(scanForm(Buffer.from(`--${BOUNDARY}\r\n`), BOUNDARY, true)).toEqual({ kind: 'missing' });
    expect(scanForm(Buffer.from(`--${BOUNDARY}\r\n`), BOUNDARY, false)).toEqual({ kind: 'more' });
  });

  it('reads a value holding CRLFs and dashes that are not the boundary', () => {
    const value = '\r\n--not-it\r\n-';
    expect(scanInPieces(form([{ name: 'model', value }]), [])).toBe(value);
  });

  it('finds the same model however the body is split (CRLFs and boundaries split too)', () => {
    const file = { name: 'file', value: AUDIO, filename: 'a.wav' };
    fc.assert(
      fc.property(
        fc.constantFrom(0, 1, 2),
        fc.stringMatching(/^[\w.:-]{1,20}$/),
        fc.array(fc.nat(), { maxLength: 12 }),
        (place, name, cuts) => {
          const parts: Part[] = [file, { name: 'prompt', value: 'hi\r\n' }];
          parts.splice(place, 0, { name: 'model', value: name });
          expect(scanInPieces(form(parts), cuts)).toBe(name);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** A request whose body arrives in the given pieces. */
function incoming(pieces: readonly Buffer[]): IncomingMessage {
  const stream = new PassThrough();
  for (const piece of pieces) {
    stream.write(piece);
  }
  stream.end();
  return Object.assign(stream, { headers: {} }) as unknown as IncomingMessage;
}

describe('readForm', () => {
  it('passes the whole body on byte for byte, with its model', async () => {
    const body = form([
      { name: 'file', value: AUDIO, filename: 'a.wav' },
      { name: 'model', value: 'whisper-1' },
    ]);
    const read = await readForm(incoming([body.subarray(0, 10), body.subarray(10)]), BOUNDARY);
    expect(read.model).toBe('whisper-1');
    expect(read.body.equals(body)).toBe(true);
  });

  it('reads only as far as the model field, leaving the rest in the request to pass on', async () => {
    const body = form([
      { name: 'model', value: 'whisper-1' },
      { name: 'file', value: AUDIO, filename: 'a.wav' },
    ]);
    const cut = body.indexOf('filename');
    const pieces = [body.subarray(0, cut), body.subarray(cut, cut + 5), body.subarray(cut + 5)];
    const read = await readForm(incoming(pieces), BOUNDARY);
    expect(read.model).toBe('whisper-1');
    expect(read.body.equals(body.subarray(0, cut))).toBe(true);
    expect(read.streamed?.first).toBe(read.body);
    expect((await wholeForm(read, 1e6)).equals(body)).toBe(true);
  });

  it('refuses a form without a model field, naming it (400)', async () => {
    await expect(
      readForm(incoming([form([{ name: 'file', value: AUDIO }])]), BOUNDARY),
    ).rejects.toThrow(/names no model: add a form field named "model"/);
  });

  it('refuses a model field past the bound with a 413 naming it', async () => {
    const big = Buffer.alloc(FORM_MODEL_BOUND + 10, 0x61);
    const body = form([
      { name: 'file', value: big, filename: 'a.wav' },
      { name: 'model', value: 'whisper-1' },
    ]);
    const pieces = [body.subarray(0, 65_536), body.subarray(65_536)];
    await expect(readForm(incoming(pieces), BOUNDARY)).rejects.toThrow(
      `within its first ${FORM_MODEL_BOUND} bytes`,
    );
  });
});
