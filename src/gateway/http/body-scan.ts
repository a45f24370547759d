/**
 * Finding `model` and `stream` in a large JSON body without materialising it, pure: the top-level
 * object is walked byte by byte, and every string (a 1 MB prompt is one) is skipped with a native
 * `indexOf` for its closing quote instead of being decoded. A full `JSON.parse` of a 1 MB body
 * costs milliseconds (a UTF-8 decode plus the parse) where this costs microseconds.
 *
 * The scan checks the top level's grammar and that brackets nest; what lies inside a nested value
 * (a message's fields) is the engine's to judge, as it judges every other field. Anything the scan
 * does not settle, such as an escaped key or a model that is not a plain string, returns undefined
 * and the caller parses the body in full, so its refusals read exactly as before.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

export interface ScannedRequest {
  readonly model: string;
  readonly streaming: boolean;
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(body: Buffer, at: number): number {
  let index = at;
  while (isSpace(body[index])) {
    index += 1;
  }
  return index;
}

/** The index of the quote closing the string whose opening quote is at `at`, or -1. */
function stringEnd(body: Buffer, at: number): number {
  let index = body.indexOf(QUOTE, at + 1);
  while (index > 0) {
    let backslashes = 0;
    while (body[index - 1 - backslashes] === BACKSLASH) {
      backslashes += 1;
    }
    if (backslashes % 2 === 0) {
      return index;
    }
    index = body.indexOf(QUOTE, index + 1);
  }
  return -1;
}

function hasBackslash(body: Buffer, from: number, to: number): boolean {
  return body.subarray(from, to).includes(BACKSLASH);
}

/** Where the scalar (number, true, false, null) starting at `at` ends, or -1 when it is none. */
function scalarEnd(body: Buffer, at: number): number {
  let index = at;
  // Letters, digits, sign, point: what JSON's scalars are spelt with.
  while (/[-+.\w]/.test(String.fromCharCode(body[index] ?? 0x20))) {
    index += 1;
  }
  if (index === at) {
    return -1;
  }
  const word = body.toString('latin1', at, index);
  return word === 'true' ||
    word === 'false' ||
    word === 'null' ||
    /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(word)
    ? index
    : -1;
}

/** Where the object or array opening at `at` closes (brackets matched, strings skipped), or -1. */
function containerEnd(body: Buffer, at: number): number {
  const open: number[] = [];
  for (let index = at; index < body.length; index += 1) {
    const byte = body[index];
    if (byte === QUOTE) {
      index = stringEnd(body, index);
      if (index < 0) {
        return -1;
      }
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      open.push(byte === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY);
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (open.pop() !== byte) {
        return -1;
      }
      if (open.length === 0) {
        return index + 1;
      }
    }
  }
  return -1;
}

/** Where the value starting at `at` ends, or -1 when there is no well-formed value there. */
function valueEnd(body: Buffer, at: number): number {
  const byte = body[at];
  if (byte === QUOTE) {
    const end = stringEnd(body, at);
    return end < 0 ? -1 : end + 1;
  }
  if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
    return containerEnd(body, at);
  }
  return scalarEnd(body, at);
}

/** The model and stream flag of a top-level JSON object, or undefined to parse it in full. */
export function scanModelRequest(body: Buffer): ScannedRequest | undefined {
  let index = skipSpace(body, 0);
  if (body[index] !== OPEN_OBJECT) {
    return undefined;
  }
  let model: string | undefined;
  let streaming = false;
  index = skipSpace(body, index + 1);
  if (body[index] === CLOSE_OBJECT) {
    return undefined;
  }
  for (;;) {
    if (body[index] !== QUOTE) {
      return undefined;
    }
    const keyEnd = stringEnd(body, index);
    if (keyEnd < 0 || hasBackslash(body, index, keyEnd)) {
      return undefined;
    }
    const key = body.toString('latin1', index + 1, keyEnd);
    index = skipSpace(body, keyEnd + 1);
    if (body[index] !== COLON) {
      return undefined;
    }
    const start = skipSpace(body, index + 1);
    const end = valueEnd(body, start);
    if (end < 0) {
      return undefined;
    }
    // Duplicate keys: the last one wins, as in JSON.parse.
    if (key === 'model') {
      model =
        body[start] === QUOTE && !hasBackslash(body, start, end)
          ? body.toString('utf8', start + 1, end - 1)
          : undefined;
    } else if (key === 'stream') {
      streaming = end - start === 4 && body.toString('latin1', start, end) === 'true';
    }
    index = skipSpace(body, end);
    if (body[index] === COMMA) {
      index = skipSpace(body, index + 1);
    } else if (body[index] === CLOSE_OBJECT) {
      break;
    } else {
      return undefined;
    }
  }
  if (skipSpace(body, index + 1) !== body.length || model === undefined || model === '') {
    return undefined;
  }
  return { model, streaming };
}
