/**
 * The `model` form field of a `multipart/form-data` body (docs/design.md D31 "Forms": audio
 * transcription and translation, or any form a model endpoint takes), pure: the boundary from the
 * Content-Type (RFC 7578, RFC 2046 §5.1.1; quoted or not), and a scan of the bytes read so far
 * that finds the part named `model` wherever it comes, says it needs more, or that the form ended
 * without one. The scan only reads; the body is passed on byte for byte (form-body.ts).
 */
import { GatewayError } from '../../core/http/gateway-error.ts';

const MULTIPART = /^\s*multipart\/form-data\s*(;|$)/i;

/** The boundary a `multipart/form-data` Content-Type names; undefined for any other type. */
export function formBoundary(contentType: string | undefined): string | undefined {
  // Every model request asks this: a JSON one is told at once, without splitting its header.
  if (contentType === undefined || !MULTIPART.test(contentType)) {
    return undefined;
  }
  const [type, ...params] = splitParams(contentType);
  if (type?.trim().toLowerCase() !== 'multipart/form-data') {
    return undefined;
  }
  for (const param of params) {
    const equals = param.indexOf('=');
    if (equals > 0 && param.slice(0, equals).trim().toLowerCase() === 'boundary') {
      const boundary = unquote(param.slice(equals + 1).trim());
      if (boundary.length >= 1 && boundary.length <= 70) {
        return boundary;
      }
    }
  }
  throw new GatewayError(
    400,
    'the multipart/form-data request names no boundary in its Content-Type (boundary=…)',
  );
}

/** Splits at `;` outside quotes. */
function splitParams(value: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let index = 0; index < value.length; index++) {
    const char = value[index] as string;
    if (char === '\\' && quoted) {
      current += char + (value[index + 1] ?? '');
      index++;
    } else if (char === '"') {
      quoted = !quoted;
      current += char;
    } else if (char === ';' && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"')
    ? value.slice(1, -1).replace(/\\(.)/g, '$1')
    : value;
}

/** The `name` a part's Content-Disposition gives, if any. */
function partName(headers: string): string | undefined {
  for (const line of headers.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'content-disposition') {
      continue;
    }
    for (const param of splitParams(line.slice(colon + 1)).slice(1)) {
      const equals = param.indexOf('=');
      if (equals > 0 && param.slice(0, equals).trim().toLowerCase() === 'name') {
        return unquote(param.slice(equals + 1).trim());
      }
    }
  }
  return undefined;
}

export type FormScan =
  /** `end`: where the field's value ends in the body. */
  | { readonly kind: 'model'; readonly model: string; readonly end: number }
  /** The bytes so far end before the `model` part does. */
  | { readonly kind: 'more' }
  /** The form's closing delimiter came, or (`ended`) the body ended, with no `model` part. */
  | { readonly kind: 'missing' };

const CRLF = Buffer.from('\r\n', 'latin1');
const HEADERS_END = Buffer.from('\r\n\r\n', 'latin1');
const DASH = 0x2d;

/** The first delimiter: at the very start, or after the preamble's CRLF. */
function firstDelimiter(data: Buffer, dash: Buffer): number {
  if (data.subarray(0, dash.length).equals(dash)) {
    return 0;
  }
  const at = data.indexOf(Buffer.concat([CRLF, dash]));
  return at < 0 ? -1 : at + CRLF.length;
}

/** Finds the `model` part in `data`, the body's first bytes (all of it when `ended`). */
export function scanForm(data: Buffer, boundary: string, ended: boolean): FormScan {
  const more: FormScan = ended ? { kind: 'missing' } : { kind: 'more' };
  const dash = Buffer.from(`--${boundary}`, 'latin1');
  const delimiter = Buffer.concat([CRLF, dash]);
  let at = firstDelimiter(data, dash);
  while (at >= 0) {
    const after = at + dash.length;
    if (data.length < after + 2) {
      return more;
    }
    if (data[after] === DASH && data[after + 1] === DASH) {
      return { kind: 'missing' };
    }
    // Transport padding (spaces, tabs) may follow the boundary before its line ends.
    const lineEnd = data.indexOf(CRLF, after);
    if (lineEnd < 0) {
      return more;
    }
    const headersEnd = data.indexOf(HEADERS_END, lineEnd);
    if (headersEnd < 0) {
      return more;
    }
    const contentStart = headersEnd + HEADERS_END.length;
    const next = data.indexOf(delimiter, contentStart);
    if (next < 0) {
      return more;
    }
    if (partName(data.toString('utf8', lineEnd + CRLF.length, headersEnd)) === 'model') {
      return { kind: 'model', model: data.toString('utf8', contentStart, next), end: next };
    }
    at = next + CRLF.length;
  }
  return more;
}
