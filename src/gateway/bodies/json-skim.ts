/**
 * Walking JSON bytes without decoding them, pure. Objects, arrays, numbers and the literals are
 * checked token by token at every depth, as JSON.parse checks them, while a string is skipped
 * with a native search for its closing quote. What a string holds (its escapes, a raw control
 * character) is not read: that would cost a look at every byte of a megabyte prompt, and the
 * engine judges it as it judges every field (docs/gateway.md, Routing rule 4).
 *
 * Each function takes the index where a token starts and returns the index just past it, or -1
 * where the bytes break the grammar. Nesting is walked with an explicit stack, never recursion,
 * so a deeply nested body cannot overflow the call stack.
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;

const ZERO = 0x30;
const NINE = 0x39;
const MINUS = 0x2d;
const PLUS = 0x2b;
const POINT = 0x2e;
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');

export function skipSpace(body: Buffer, at: number): number {
  let index = at;
  for (;;) {
    const byte = body[index];
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) {
      return index;
    }
    index += 1;
  }
}

/** Past the quote closing the string whose opening quote is at `at`, or -1. */
export function stringEnd(body: Buffer, at: number): number {
  let index = body.indexOf(QUOTE, at + 1);
  while (index > 0) {
    let backslashes = 0;
    while (body[index - 1 - backslashes] === BACKSLASH) {
      backslashes += 1;
    }
    if (backslashes % 2 === 0) {
      return index + 1;
    }
    index = body.indexOf(QUOTE, index + 1);
  }
  return -1;
}

/** Whether [from, to) holds a backslash: a string there must be decoded to be read. */
export function hasBackslash(body: Buffer, from: number, to: number): boolean {
  if (to - from > 64) {
    return body.subarray(from, to).includes(BACKSLASH);
  }
  for (let index = from; index < to; index += 1) {
    if (body[index] === BACKSLASH) {
      return true;
    }
  }
  return false;
}

/** Whether [start, end) holds exactly `word`'s bytes. */
export function bytesAre(body: Buffer, start: number, end: number, word: Uint8Array): boolean {
  if (end - start !== word.length) {
    return false;
  }
  for (let index = 0; index < word.length; index += 1) {
    if (body[start + index] !== word[index]) {
      return false;
    }
  }
  return true;
}

function digitsEnd(body: Buffer, at: number): number {
  let index = at;
  while ((body[index] ?? 0) >= ZERO && (body[index] ?? 0) <= NINE) {
    index += 1;
  }
  return index;
}

/** Past a number, true, false or null starting at `at`, or -1 when there is none. */
export function scalarEnd(body: Buffer, at: number): number {
  const first = body[at];
  if (first === 0x74) {
    return bytesAre(body, at, at + 4, TRUE) ? at + 4 : -1;
  }
  if (first === 0x66) {
    return bytesAre(body, at, at + 5, FALSE) ? at + 5 : -1;
  }
  if (first === 0x6e) {
    return bytesAre(body, at, at + 4, NULL) ? at + 4 : -1;
  }
  // -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?
  let index = body[at] === MINUS ? at + 1 : at;
  if (body[index] === ZERO) {
    index += 1;
  } else {
    const end = digitsEnd(body, index);
    if (end === index) {
      return -1;
    }
    index = end;
  }
  if (body[index] === POINT) {
    const end = digitsEnd(body, index + 1);
    if (end === index + 1) {
      return -1;
    }
    index = end;
  }
  if (body[index] === 0x65 || body[index] === 0x45) {
    index += 1;
    if (body[index] === PLUS || body[index] === MINUS) {
      index += 1;
    }
    const end = digitsEnd(body, index);
    if (end === index) {
      return -1;
    }
    index = end;
  }
  return index;
}

/** From `at` (a key's opening quote), past the key, its colon and the space after it, or -1. */
function memberValueStart(body: Buffer, at: number): number {
  if (body[at] !== QUOTE) {
    return -1;
  }
  const end = stringEnd(body, at);
  if (end < 0) {
    return -1;
  }
  const colon = skipSpace(body, end);
  return body[colon] === COLON ? skipSpace(body, colon + 1) : -1;
}

/**
 * The walk itself: `at` is where a value starts when `open` is empty, or just past a value
 * inside the containers `open` lists (their closing bytes, innermost last). Returns the index
 * past the outermost of them, or -1.
 */
function walk(body: Buffer, at: number, open: number[]): number {
  let index = at;
  let afterValue = open.length > 0;
  for (;;) {
    if (!afterValue) {
      const byte = body[index];
      if (byte === QUOTE) {
        index = stringEnd(body, index);
      } else if (byte === OPEN_OBJECT) {
        index = skipSpace(body, index + 1);
        if (body[index] === CLOSE_OBJECT) {
          index += 1;
        } else {
          open.push(CLOSE_OBJECT);
          index = memberValueStart(body, index);
          if (index < 0) {
            return -1;
          }
          continue;
        }
      } else if (byte === OPEN_ARRAY) {
        index = skipSpace(body, index + 1);
        if (body[index] === CLOSE_ARRAY) {
          index += 1;
        } else {
          open.push(CLOSE_ARRAY);
          continue;
        }
      } else {
        index = scalarEnd(body, index);
      }
      if (index < 0) {
        return -1;
      }
    }
    // Just past a value: close what it ends, or move to the next element or member.
    afterValue = false;
    for (;;) {
      const closer = open[open.length - 1];
      if (closer === undefined) {
        return index;
      }
      index = skipSpace(body, index);
      const byte = body[index];
      if (byte === closer) {
        open.pop();
        index += 1;
      } else if (byte === COMMA) {
        index = skipSpace(body, index + 1);
        if (closer === CLOSE_OBJECT) {
          index = memberValueStart(body, index);
          if (index < 0) {
            return -1;
          }
        }
        break;
      } else {
        return -1;
      }
    }
  }
}

/** Past the value starting at `at` (after any space), or -1 when no well-formed value is there. */
export function valueEnd(body: Buffer, at: number): number {
  return walk(body, at, []);
}

/** Past the `]` of the array that `at` is inside, just past one of its elements, or -1. */
export function arrayRestEnd(body: Buffer, at: number): number {
  return walk(body, at, [CLOSE_ARRAY]);
}

/** The text of the JSON string token [start, end) (quotes included), or undefined if invalid. */
export function decodeString(body: Buffer, start: number, end: number): string | undefined {
  if (!hasBackslash(body, start + 1, end - 1)) {
    return body.toString('utf8', start + 1, end - 1);
  }
  try {
    return JSON.parse(body.toString('utf8', start, end)) as string;
  } catch {
    return undefined;
  }
}
