/**
 * An engine's HTTP/1.1 reply, read from the bytes as they arrive (RFC 9112): the status line and
 * header lines, then the body framed by Content-Length, by chunked transfer coding, or by the
 * connection's close. Body bytes are handed on as views of the buffers read, never copied, and a
 * chunked body is decoded (the caller's response frames it again). The gateway's engine client
 * (engine-client.ts) feeds it; it does no I/O of its own, so every split of a reply can be tested.
 */

/** What a reply says as it is read. Each method is called in order; `end` at most once. */
export interface ReplyEvents {
  head(status: number, rawHeaders: string[], keepAlive: boolean): void;
  body(chunk: Buffer): void;
  end(): void;
}

/** A reply that is not HTTP/1.1 as RFC 9112 frames it; the connection cannot be used again. */
export class MalformedReplyError extends Error {
  readonly code = 'ERR_ENGINE_REPLY';
  constructor(detail: string) {
    super(`the engine's reply is not valid HTTP/1.1: ${detail}`);
    this.name = 'MalformedReplyError';
  }
}

/** A status line and headers larger than this are refused (undici and Node allow 16–64 KiB). */
const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size line with its extensions, or one trailer line. */
const MAX_LINE_BYTES = 8 * 1024;
const CRLF_CRLF = Buffer.from('\r\n\r\n');
/** RFC 9110 §5.1 field names, and the bytes a field value may hold (§5.5): what writeHead takes. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * A whole head of valid field lines, in one test: an engine's usual head passes it, and its lines
 * then need no test of their own (the one test costs less than two per field). A head that fails
 * it is checked line by line, which names what is wrong.
 */
const VALID_HEAD =
  /^HTTP\/1\.[01] \d{3}(?: [^\r\n]*)?(?:\r\n[!#$%&'*+.^_`|~0-9A-Za-z-]+:[\t\x20-\x7e\x80-\xff]*)*$/;

const enum State {
  Head,
  Fixed,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  Done,
}

export class ReplyParser {
  private state = State.Head;
  /** Bytes of the head, a chunk-size line or a trailer line not yet complete. */
  private pending: Buffer | undefined;
  /** Body bytes still due: of the Content-Length, or of the current chunk. */
  private remaining = 0;
  private fed = false;

  constructor(private readonly events: ReplyEvents) {}

  /** Whether the body runs until the connection closes (no length and not chunked). */
  get untilClose(): boolean {
    return this.state === State.UntilClose;
  }

  get done(): boolean {
    return this.state === State.Done;
  }

  /** Whether any byte of the reply (an interim 1xx included) has arrived. */
  get started(): boolean {
    return this.fed;
  }

  /** Reads bytes of the reply; throws MalformedReplyError; bytes past its end are refused too. */
  feed(data: Buffer): void {
    this.fed = true;
    let offset = 0;
    while (offset < data.length) {
      switch (this.state) {
        case State.Head:
          offset = this.readHead(data, offset);
          break;
        case State.Fixed:
        case State.ChunkData:
          offset = this.readBody(data, offset);
          break;
        case State.ChunkSize:
          offset = this.readLine(data, offset, (line) => this.chunkSize(line));
          break;
        case State.ChunkDataEnd:
          offset = this.readLine(data, offset, (line) => {
            if (line.length !== 0) {
              throw new MalformedReplyError('a chunk does not end with CRLF');
            }
            this.state = State.ChunkSize;
          });
          break;
        case State.Trailers:
          // Trailer fields are read and dropped: the gateway passes no trailers on.
          offset = this.readLine(data, offset, (line) => {
            if (line.length === 0) {
              this.finish();
            }
          });
          break;
        case State.UntilClose:
          this.events.body(offset === 0 ? data : data.subarray(offset));
          return;
        case State.Done:
          throw new MalformedReplyError('bytes arrived after the reply ended');
      }
    }
  }

  /** The connection closed: the end of a body that runs until close, else an error to report. */
  close(): boolean {
    if (this.state === State.UntilClose) {
      this.finish();
      return true;
    }
    return this.state === State.Done;
  }

  private readHead(data: Buffer, offset: number): number {
    const joined = this.pending === undefined ? data : Buffer.concat([this.pending, data]);
    const start = this.pending === undefined ? offset : 0;
    // A split CRLF CRLF may straddle the two buffers: search from just before the new bytes.
    const from = Math.max(start, (this.pending?.length ?? 0) - 3);
    const end = joined.indexOf(CRLF_CRLF, from);
    if (end < 0) {
      if (joined.length - start > MAX_HEAD_BYTES) {
        throw new MalformedReplyError(`its head is over ${MAX_HEAD_BYTES} bytes`);
      }
      this.pending = joined.subarray(start);
      return data.length;
    }
    this.pending = undefined;
    this.parseHead(joined.toString('latin1', start, end));
    // Where the body begins, measured in `data`.
    return data.length - (joined.length - (end + 4));
  }

  private parseHead(text: string): void {
    const lines = text.split('\r\n');
    const match = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
    if (match === null) {
      throw new MalformedReplyError(`its status line is ${JSON.stringify(lines[0])}`);
    }
    const http10 = match[1] === '0';
    const status = Number(match[2]);
    const rawHeaders: string[] = [];
    let length: number | undefined;
    let chunked = false;
    let connection = '';
    const valid = VALID_HEAD.test(text);
    for (let index = 1; index < lines.length; index += 1) {
      const line = lines[index] as string;
      const colon = line.indexOf(':');
      if (!valid && colon <= 0) {
        throw new MalformedReplyError(`a header line is ${JSON.stringify(line)}`);
      }
      const name = line.slice(0, colon);
      const value = line.slice(colon + 1).trim();
      if (!valid && (!FIELD_NAME.test(name) || !FIELD_VALUE.test(value))) {
        // The value is not quoted: it is the engine's, and may be anything.
        throw new MalformedReplyError(`the header ${JSON.stringify(name)} is not a valid field`);
      }
      rawHeaders.push(name, value);
      // Only the three names below are read; the others are not lower-cased for nothing.
      const lower =
        name.length === 10 || name.length === 14 || name.length === 17 ? name.toLowerCase() : '';
      if (lower === 'content-length') {
        if (!/^\d+$/.test(value) || (length !== undefined && length !== Number(value))) {
          throw new MalformedReplyError(`its Content-Length is ${JSON.stringify(value)}`);
        }
        length = Number(value);
      } else if (lower === 'transfer-encoding') {
        chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      } else if (lower === 'connection') {
        connection += `${value.toLowerCase()},`;
      }
    }
    if (status < 200) {
      // 1xx interim replies (100 Continue, 103 Early Hints) precede the real one.
      return;
    }
    const keepAlive = http10 ? connection.includes('keep-alive') : !connection.includes('close');
    this.events.head(status, rawHeaders, keepAlive && (chunked || length !== undefined));
    if (status === 204 || status === 304) {
      this.finish();
    } else if (chunked) {
      this.state = State.ChunkSize;
    } else if (length !== undefined) {
      this.remaining = length;
      this.state = State.Fixed;
      if (length === 0) {
        this.finish();
      }
    } else {
      this.state = State.UntilClose;
    }
  }

  private readBody(data: Buffer, offset: number): number {
    const take = Math.min(this.remaining, data.length - offset);
    this.events.body(
      offset === 0 && take === data.length ? data : data.subarray(offset, offset + take),
    );
    this.remaining -= take;
    if (this.remaining === 0) {
      if (this.state === State.Fixed) {
        this.finish();
      } else {
        this.state = State.ChunkDataEnd;
      }
    }
    return offset + take;
  }

  /** Collects one CRLF-ended line across buffers and hands it on without its CRLF. */
  private readLine(data: Buffer, offset: number, take: (line: string) => void): number {
    const lf = data.indexOf(10, offset);
    if (lf < 0) {
      const part = data.subarray(offset);
      this.pending =
        this.pending === undefined ? Buffer.from(part) : Buffer.concat([this.pending, part]);
      if (this.pending.length > MAX_LINE_BYTES) {
        throw new MalformedReplyError(`a chunk line is over ${MAX_LINE_BYTES} bytes`);
      }
      return data.length;
    }
    const part = data.subarray(offset, lf + 1);
    const whole = this.pending === undefined ? part : Buffer.concat([this.pending, part]);
    this.pending = undefined;
    if (whole.length < 2 || whole[whole.length - 2] !== 13) {
      throw new MalformedReplyError('a chunk line does not end with CRLF');
    }
    take(whole.toString('latin1', 0, whole.length - 2));
    return lf + 1;
  }

  private chunkSize(line: string): void {
    const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line);
    if (size === null) {
      throw new MalformedReplyError(`a chunk size is ${JSON.stringify(line)}`);
    }
    this.remaining = Number.parseInt(size[1] as string, 16);
    this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
  }

  private finish(): void {
    this.state = State.Done;
    this.events.end();
  }
}
