/** Engine replies read from every split of their bytes, the way sockets may deliver them. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { MalformedReplyError, ReplyParser } from './reply-parser.ts';

interface Read {
  status: number;
  headers: string[];
  keepAlive: boolean;
  body: string;
  ended: boolean;
  /** How many times each event fired, in order of first firing. */
  order: string[];
}

/** Feeds the reply in the pieces given; `closed` then tells the parser the connection closed. */
function read(pieces: readonly Buffer[], closed = false): Read & { closeAnswer?: boolean } {
  const result: Read & { closeAnswer?: boolean } = {
    status: 0,
    headers: [],
    keepAlive: false,
    body: '',
    ended: false,
    order: [],
  };
  const bodies: Buffer[] = [];
  const parser = new ReplyParser({
    head(status, headers, keepAlive) {
      Object.assign(result, { status, headers, keepAlive });
      result.order.push('head');
    },
    body(chunk) {
      // Copied: the parser hands on views of the buffers it was fed.
      bodies.push(Buffer.from(chunk));
      if (result.order.at(-1) !== 'body') {
        result.order.push('body');
      }
    },
    end() {
      result.ended = true;
      result.order.push('end');
    },
  });
  for (const piece of pieces) {
    parser.feed(piece);
  }
  if (closed) {
    result.closeAnswer = parser.close();
  }
  result.body = Buffer.concat(bodies).toString('utf8');
  return result;
}

/** The reply cut at the given offsets. */
function cut(text: string, offsets: readonly number[]): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const points = [...new Set(offsets.map((offset) => offset % (bytes.length + 1)))].sort(
    (a, b) => a - b,
  );
  const pieces: Buffer[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(from, point));
    from = point;
  }
  pieces.push(bytes.subarray(from));
  return pieces.filter((piece) => piece.length > 0);
}

const FIXED =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{"answer":"é"}';
const CHUNKED =
  'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '9\r\ndata: 1\n\n\r\n' +
  'a;name=value\r\ndata: 22\n\n\r\n' +
  '0\r\nX-Trailer: t\r\n\r\n';

describe('ReplyParser', () => {
  it('reads a Content-Length reply from any split, the body byte for byte', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(200), { maxLength: 6 }), (offsets) => {
        const result = read(cut(FIXED, offsets));
        expect(result).toMatchObject({
          status: 200,
          headers: ['Content-Type', 'application/json', 'Content-Length', '15'],
          keepAlive: true,
          body: '{"answer":"é"}',
          ended: true,
          order: ['head', 'body', 'end'],
        });
      }),
    );
  });

  it('decodes a chunked reply from any split, dropping extensions and trailers', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(300), { maxLength: 8 }), (offsets) => {
        const result = read(cut(CHUNKED, offsets));
        expect(result.body).toBe('data: 1\n\ndata: 22\n\n');
        expect(result.keepAlive).toBe(true);
        expect(result.ended).toBe(true);
      }),
    );
  });

  it('reads a body without a length until the connection closes, and never keeps it', () => {
    const pieces = cut('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it', [20, 50]);
    const open = read(pieces);
    expect(open).toMatchObject({ keepAlive: false, body: 'all of it', ended: false });
    expect(read(pieces, true)).toMatchObject({ ended: true, closeAnswer: true });
  });

  it('says when the connection closed before the reply ended', () => {
    const partial = Buffer.from(FIXED).subarray(0, 80);
    expect(read([partial], true)).toMatchObject({ ended: false, closeAnswer: false });
    expect(read([Buffer.from('HTTP/1.1 200')], true)).toMatchObject({ closeAnswer: false });
  });

  it('keeps a connection only when the engine allows it', () => {
    const close = 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';
    expect(read([Buffer.from(close)])).toMatchObject({ keepAlive: false, ended: true });
    const http10 = 'HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n';
    expect(read([Buffer.from(http10)]).keepAlive).toBe(false);
    const kept10 = 'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n';
    expect(read([Buffer.from(kept10)]).keepAlive).toBe(true);
  });

  it('skips interim 1xx replies and ends 204 at its head', () => {
    const text = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n';
    expect(read(cut(text, [10, 30]))).toMatchObject({
      status: 204,
      headers: ['X-A', '1'],
      ended: true,
      order: ['head', 'end'],
    });
  });

  it('reads every valid field of any head as sent, and refuses a head with any invalid byte', () => {
    // The whole head is tested at once, and line by line only when that fails: both must agree
    // with RFC 9110 field by field, for any bytes an engine may send.
    const nameChar = fc.constantFrom(...'!#$%&*+.^_`|~09AZaz-'.split(''), 'x', 'Y');
    const valueChar = fc.oneof(
      fc.constantFrom('\t', ' ', 'a', ':', '"', '\x7e', '\x80', '\xa0', '\xff'),
      // Any byte but CR and LF, which frame the lines rather than sit in a value.
      fc
        .integer({ min: 0, max: 253 })
        .map((code) => String.fromCharCode(code >= 10 ? (code >= 12 ? code + 2 : code + 1) : code)),
    );
    const field = fc.tuple(
      fc.string({ unit: nameChar, minLength: 1, maxLength: 6 }),
      fc.string({ unit: valueChar, maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(field, { maxLength: 5 }), (fields) => {
        const named = fields.filter(
          ([name]) => !/^(content-length|transfer-encoding)$/i.test(name),
        );
        const head = `HTTP/1.1 200 OK${named.map(([name, value]) => `\r\n${name}:${value}`).join('')}`;
        const bytes = Buffer.from(`${head}\r\nContent-Length: 0\r\n\r\n`, 'latin1');
        const valid = named.every(([, value]) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value.trim()));
        if (!valid) {
          expect(() => read([bytes])).toThrow(MalformedReplyError);
          return;
        }
        const expected = named.flatMap(([name, value]) => [name, value.trim()]);
        expect(read([bytes]).headers).toEqual([...expected, 'Content-Length', '0']);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what is not HTTP/1.1, naming the part', () => {
    const refused = (text: string): string => {
      try {
        read([Buffer.from(text)]);
      } catch (error) {
        expect(error).toBeInstanceOf(MalformedReplyError);
        return (error as Error).message;
      }
      throw new Error(`accepted: ${text}`);
    };
    expect(refused('SSH-2.0-OpenSSH\r\n\r\n')).toContain('status line is "SSH-2.0-OpenSSH"');
    expect(refused('HTTP/1.1 200 OK\r\nno colon\r\n\r\n')).toContain('header line');
    expect(refused('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n')).toContain('Content-Length');
    expect(refused('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n')).toContain(
      'Content-Length',
    );
    expect(refused('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')).toContain(
      'chunk size is "zz"',
    );
    expect(refused('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab')).toContain('after the reply');
    expect(refused(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(70_000)}`)).toContain('head is over');
    // What node:http's writeHead would throw on, refused here so the caller gets a 502.
    expect(refused('HTTP/1.1 200 OK\r\nX-Bad: a\u0001b\r\n\r\n')).toContain(
      '"X-Bad" is not a valid',
    );
    expect(refused('HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n')).toContain(
      '"Bad Name" is not a valid',
    );
  });
});
