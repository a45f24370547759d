/**
 * A request body sent to an engine as it arrives (docs/design.md D31 "Forms"): the bytes the
 * gateway read to find the form's `model` field, then the rest of the caller's request, passed on
 * chunk by chunk with the socket's backpressure, so an upload of any size is never held in memory.
 * With the caller's Content-Length the engine gets the same; without one, chunked framing. Such a
 * body cannot be sent twice: it goes on a new connection and is never resent (engine-client.ts,
 * upstream-reply.ts).
 */
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';

export interface StreamedBody {
  /** What was read already, sent first. */
  readonly first: Buffer;
  /** The rest of the caller's body, paused until it is sent. */
  readonly rest: Readable;
  /** The whole body's length, where the caller gave it (Content-Length). */
  readonly length?: number;
}

export type EngineBody = Buffer | string | StreamedBody;

export function isStreamed(body: EngineBody): body is StreamedBody {
  return typeof body === 'object' && !Buffer.isBuffer(body);
}

/** The framing header of a body: its length, or chunked when a streamed one's is not known. */
export function bodyFraming(body: EngineBody): string {
  if (isStreamed(body)) {
    return body.length === undefined
      ? 'transfer-encoding: chunked'
      : `content-length: ${body.length}`;
  }
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  return `content-length: ${length}`;
}

/** How a pump ends: the whole body was written, or the caller's side broke off first. */
export interface PumpEvents {
  sent(): void;
  broken(error: Error): void;
}

/**
 * Writes `first`, then the rest as it comes, pausing the caller's stream while the socket's
 * buffer is full. Returns a stop that leaves the rest unread (a failed exchange, an early reply).
 */
export function pumpBody(socket: Socket, body: StreamedBody, events: PumpEvents): () => void {
  const chunked = body.length === undefined;
  const { rest } = body;
  let done = false;
  const write = (chunk: Buffer): boolean => {
    if (!chunked) {
      return socket.write(chunk);
    }
    socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
    socket.write(chunk);
    return socket.write('\r\n', 'latin1');
  };
  const onDrain = (): void => {
    rest.resume();
  };
  const stop = (): void => {
    done = true;
    rest.off('data', onData);
    rest.off('end', onEnd);
    rest.off('error', onBroken);
    rest.off('close', onClose);
    socket.off('drain', onDrain);
    rest.pause();
  };
  const onData = (chunk: Buffer): void => {
    if (chunk.length > 0 && !write(chunk)) {
      rest.pause();
      socket.once('drain', onDrain);
    }
  };
  const onEnd = (): void => {
    stop();
    if (chunked) {
      socket.write('0\r\n\r\n', 'latin1');
    }
    events.sent();
  };
  const onBroken = (error: Error): void => {
    stop();
    events.broken(error);
  };
  const onClose = (): void => {
    if (!done) {
      onBroken(new Error('the caller closed the request before its body ended'));
    }
  };
  if (body.first.length > 0) {
    write(body.first);
  }
  rest.on('data', onData);
  rest.once('end', onEnd);
  rest.once('error', onBroken);
  rest.once('close', onClose);
  rest.resume();
  return stop;
}
