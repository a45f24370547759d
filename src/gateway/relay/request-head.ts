/**
 * The request line and headers the engine client writes (engine-client.ts): the caller's headers
 * as the relay passed them, the client's own Host, and the body's framing (streamed-body.ts).
 */
import { bodyFraming, type EngineBody } from './streamed-body.ts';

/** What of an engine request its head says (engine-client.ts EngineRequest). */
interface HeadParts {
  readonly method: string;
  readonly path: string;
  /** Flat `[name, value, …]`. */
  readonly headers: readonly string[];
  readonly body: EngineBody;
}

/** A header name or value must not carry anything that would end its line. */
const LINE_BREAK = /[\r\n\0]/;

/** The request line and headers, or the name of a header that would break its line. */
export function requestHead(request: HeadParts, hostHeader: string): string | Error {
  let head = `${request.method} ${request.path} HTTP/1.1\r\nhost: ${hostHeader}\r\n`;
  const { headers } = request;
  for (let index = 0; index + 1 < headers.length; index += 2) {
    const name = headers[index] as string;
    const value = headers[index + 1] as string;
    if (LINE_BREAK.test(name) || LINE_BREAK.test(value)) {
      // The value is never quoted: it may be the engine key.
      return new Error(`the header ${JSON.stringify(name)} carries a line break`);
    }
    head += `${name}: ${value}\r\n`;
  }
  return `${head}${bodyFraming(request.body)}\r\n\r\n`;
}
