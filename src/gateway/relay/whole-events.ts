/**
 * A server-sent event stream passed on in whole events (docs/design.md D33): the bytes after the
 * last event boundary are held until the event they begin is complete. An engine's reply reaches
 * the gateway in whatever pieces its writes and TCP made, so without this an event the gateway
 * adds itself (the SSE error event that ends a cut stream) could land inside a half-sent event of
 * the engine's, and the client would read one event made of two: the error lost, or JSON that
 * does not parse. An SSE client acts on an event only at its blank line, so holding its first part
 * delays nothing a client would see.
 */

/** More than this held with no boundary: not an event stream after all; passed on as it comes. */
const MOST_HELD = 64 * 1024;

/** Where the last event boundary (a blank line, LF or CRLF) in `bytes` ends; 0 when none. */
function boundaryEnd(bytes: Buffer): number {
  const lf = bytes.lastIndexOf('\n\n');
  const crlf = bytes.lastIndexOf('\r\n\r\n');
  return Math.max(lf < 0 ? 0 : lf + 2, crlf < 0 ? 0 : crlf + 4);
}

export class WholeEvents {
  private held: Buffer | undefined;

  /** What may go on of `chunk` (with what was held before it): whole events only, or nothing. */
  take(chunk: Buffer): Buffer | undefined {
    const bytes = this.held === undefined ? chunk : Buffer.concat([this.held, chunk]);
    const end = boundaryEnd(bytes);
    if (end === bytes.length || (end === 0 && bytes.length > MOST_HELD)) {
      this.held = undefined;
      return bytes;
    }
    // A copy: the rest of an engine's chunk must not pin the whole chunk it came in.
    this.held = Buffer.from(bytes.subarray(end));
    return end === 0 ? undefined : bytes.subarray(0, end);
  }

  /** What is held when the stream ends: an engine that stopped inside an event sent it so. */
  rest(): Buffer | undefined {
    const { held } = this;
    this.held = undefined;
    return held;
  }
}
