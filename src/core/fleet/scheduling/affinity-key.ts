/**
 * The affinity key of a request (GUIDE D25 `affinity`), pure: from the raw JSON body to a short
 * hash of its leading prompt, reading at most `scanBytes` of it and copying nothing.
 *
 * - Chat (`messages`): the array from its start through the first `user` message. An agent's
 *   conversation grows at the end, so this prefix (its system prompt and first question) is the
 *   same on every turn, and two sessions that share a system prompt still differ by their first
 *   question. Where that prefix runs past `scanBytes`, the bytes up to there stand for it.
 * - Completions (`prompt`): its first `promptBytes`, which stay put as the prompt grows.
 * The bytes are hashed as sent: one client serialises the same messages the same way each turn,
 * and reading them raw needs no parse of a body that can be megabytes. Hashed: the first and last
 * HASH_EDGE_BYTES of the range and its length, so the cost stays flat on a long system prompt
 * while the tail (the first question) still tells sessions apart.
 * A body with neither, or malformed within the scanned bytes, has no key: it is routed as usual.
 * Strings are skipped with a native search for their closing quote, so the cost is a few
 * microseconds even for a long system prompt.
 */
import { createHash } from 'node:crypto';

export interface AffinityKeyLimits {
  readonly scanBytes: number;
  readonly promptBytes: number;
}

/** 256 KiB covers an agent's system prompt (tens of thousands of tokens) and its first question. */
export const AFFINITY_KEY_LIMITS: AffinityKeyLimits = { scanBytes: 262_144, promptBytes: 2_048 };
export const HASH_EDGE_BYTES = 4_096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
const SCALAR_ENDS = new Set([COMMA, COLON, CLOSE_ARRAY, CLOSE_OBJECT, 0x20, 0x09, 0x0a, 0x0d]);

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
const MESSAGES = ascii('messages');
const PROMPT = ascii('prompt');
const ROLE = ascii('role');
const USER = ascii('user');

/** A byte range [start, end) of the body. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** Thrown inside the scan when the bytes end or break the grammar; caught at its top. */
class OutOfBytes extends Error {}

class Scanner {
  constructor(
    /** A Buffer view: its indexOf is a native search, a Uint8Array's a hundred times slower. */
    readonly bytes: Buffer,
    public at = 0,
  ) {}

  /** The next significant byte, after whitespace. */
  peek(): number {
    for (;;) {
      const byte = this.bytes[this.at];
      if (byte === undefined) {
        throw new OutOfBytes();
      }
      if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) {
        return byte;
      }
      this.at += 1;
    }
  }

  expect(byte: number): void {
    if (this.peek() !== byte) {
      throw new OutOfBytes();
    }
    this.at += 1;
  }

  /** A string's contents as a range (escapes left as they are); the scanner moves past it. */
  string(): ByteRange {
    this.expect(QUOTE);
    const start = this.at;
    let end = this.bytes.indexOf(QUOTE, start);
    for (;;) {
      if (end === -1) {
        throw new OutOfBytes();
      }
      let backslashes = 0;
      while (end - backslashes - 1 >= start && this.bytes[end - backslashes - 1] === BACKSLASH) {
        backslashes += 1;
      }
      if (backslashes % 2 === 0) {
        break;
      }
      end = this.bytes.indexOf(QUOTE, end + 1);
    }
    this.at = end + 1;
    return { start, end };
  }

  is(range: ByteRange, word: Uint8Array): boolean {
    if (range.end - range.start !== word.length) {
      return false;
    }
    return word.every((byte, index) => this.bytes[range.start + index] === byte);
  }

  /** Moves past one value of any kind, nested ones included, without recursion. */
  skipValue(): void {
    let depth = 0;
    do {
      const byte = this.peek();
      if (byte === QUOTE) {
        this.string();
      } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        depth += 1;
        this.at += 1;
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        depth -= 1;
        this.at += 1;
        if (depth < 0) {
          throw new OutOfBytes();
        }
      } else if (byte === COLON || byte === COMMA) {
        if (depth === 0) {
          throw new OutOfBytes();
        }
        this.at += 1;
      } else {
        // A number, true, false or null: up to the next delimiter (or the end of the bytes).
        while (!SCALAR_ENDS.has(this.bytes[this.at] ?? COMMA)) {
          this.at += 1;
        }
      }
    } while (depth > 0);
  }

  /** Calls `each` with every key of the object here, positioned at its value; `each` consumes it. */
  members(each: (key: ByteRange) => ByteRange | undefined): ByteRange | undefined {
    this.expect(OPEN_OBJECT);
    if (this.peek() === CLOSE_OBJECT) {
      this.at += 1;
      return undefined;
    }
    for (;;) {
      const key = this.string();
      this.expect(COLON);
      const found = each(key);
      if (found !== undefined) {
        return found;
      }
      if (this.peek() === COMMA) {
        this.at += 1;
      } else {
        this.expect(CLOSE_OBJECT);
        return undefined;
      }
    }
  }
}

/** The range of the leading prompt, or undefined when the body has none this can find. */
export function leadingPrompt(
  body: Uint8Array,
  limits: AffinityKeyLimits = AFFINITY_KEY_LIMITS,
): ByteRange | undefined {
  const truncated = body.length > limits.scanBytes;
  const length = Math.min(body.byteLength, limits.scanBytes);
  const scanner = new Scanner(Buffer.from(body.buffer, body.byteOffset, length));
  let messagesStart: number | undefined;
  try {
    return scanner.members((key) => {
      if (scanner.is(key, MESSAGES) && scanner.peek() === OPEN_ARRAY) {
        messagesStart = scanner.at;
        return throughFirstUser(scanner);
      }
      if (scanner.is(key, PROMPT)) {
        const start = scanner.at;
        scanner.skipValue();
        return { start, end: Math.min(scanner.at, start + limits.promptBytes) };
      }
      scanner.skipValue();
      return undefined;
    });
  } catch (error) {
    if (!(error instanceof OutOfBytes)) {
      throw error;
    }
    // Ran out inside the messages of a body longer than the scan: the bytes read stand for it.
    return truncated && messagesStart !== undefined
      ? { start: messagesStart, end: limits.scanBytes }
      : undefined;
  }
}

/** From the `[` of `messages` through the end of its first user message (or the whole array). */
function throughFirstUser(scanner: Scanner): ByteRange {
  const start = scanner.at;
  scanner.expect(OPEN_ARRAY);
  if (scanner.peek() === CLOSE_ARRAY) {
    throw new OutOfBytes();
  }
  for (;;) {
    const message = { user: false };
    scanner.members((key) => {
      if (scanner.is(key, ROLE) && scanner.peek() === QUOTE) {
        message.user = scanner.is(scanner.string(), USER);
      } else {
        scanner.skipValue();
      }
      return undefined;
    });
    if (message.user) {
      return { start, end: scanner.at };
    }
    if (scanner.peek() === COMMA) {
      scanner.at += 1;
    } else {
      scanner.expect(CLOSE_ARRAY);
      return { start, end: scanner.at };
    }
  }
}

/** The key: 16 characters of a hash of the leading prompt, or undefined when there is none. */
export function affinityKey(
  body: Uint8Array,
  limits: AffinityKeyLimits = AFFINITY_KEY_LIMITS,
): string | undefined {
  const range = leadingPrompt(body, limits);
  if (range === undefined || range.end <= range.start) {
    return undefined;
  }
  const length = range.end - range.start;
  const hash = createHash('sha256');
  if (length <= 2 * HASH_EDGE_BYTES) {
    hash.update(body.subarray(range.start, range.end));
  } else {
    hash.update(body.subarray(range.start, range.start + HASH_EDGE_BYTES));
    hash.update(body.subarray(range.end - HASH_EDGE_BYTES, range.end));
  }
  hash.update(String(length));
  return hash.digest('base64url').slice(0, 16);
}
