/**
 * One pass over a model request's JSON body, pure: its `model`, its `stream` flag and where its
 * leading prompt lies (the bytes its affinity key is hashed from, docs/gateway.md "Prompt-cache
 * affinity"), without materialising the body. A full `JSON.parse` of a 1 MB body costs
 * milliseconds (a UTF-8 decode plus the parse); this walks its tokens (json-skim.ts) and skips its
 * strings natively, so the prompt's size barely shows.
 *
 * The answer is what JSON.parse would give: the last of repeated keys wins, escaped keys and
 * values are decoded, and a key nested below the top level, or spelt inside a string, is not one.
 * Anything the scan cannot settle (a body that breaks the grammar, is not an object, or names no
 * plain string model) returns undefined, and the caller parses the body in full, so its
 * refusals read exactly as before.
 *
 * The leading prompt:
 * - Chat (`messages`): the array from its `[` through the first message whose `role` is `user`
 *   (the whole array when none is). An agent's conversation grows at the end, so this prefix (its
 *   system prompt and first question) is the same on every turn, and two sessions that share a
 *   system prompt still differ by their first question. An empty array, or an element before
 *   the first user message that is not an object, gives none.
 * - Completions (`prompt`, when `messages` gives none): its first PROMPT_BYTES, which stay put
 *   as the prompt grows.
 * The bytes are taken as sent: one client serialises the same messages the same way each turn.
 */
import type { ByteRange } from '../../core/fleet/scheduling/requests/affinity-key.ts';
import {
  arrayRestEnd,
  bytesAre,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  decodeString,
  hasBackslash,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  skipSpace,
  stringEnd,
  valueEnd,
} from './json-skim.ts';

/** A completion prompt's first bytes stand for it: they tell prompts apart and stay put. */
export const PROMPT_BYTES = 2_048;

export interface ScannedRequest {
  readonly model: string;
  readonly streaming: boolean;
  /** The leading prompt's bytes, when the body has one. */
  readonly prompt?: ByteRange;
}

const word = (text: string): Buffer => Buffer.from(text, 'latin1');
const MODEL = word('model');
const STREAM = word('stream');
const MESSAGES = word('messages');
const PROMPT = word('prompt');
const ROLE = word('role');
const USER = word('user');
const TRUE = word('true');

/** Whether the string token [start, end) (quotes included) is `name`, decoded when escaped. */
function stringIs(body: Buffer, start: number, end: number, name: Buffer): boolean {
  if (bytesAre(body, start + 1, end - 1, name)) {
    return true;
  }
  // Escaped, it spells `name` with more bytes than `name` has.
  return (
    end - start - 2 > name.length &&
    hasBackslash(body, start + 1, end - 1) &&
    decodeString(body, start, end) === name.toString('latin1')
  );
}

/** A message's role is `user` (its last `role` key, as JSON.parse reads it). */
const NOT_USER = 0;
const USER_ROLE = 1;

/**
 * Past the message object at `at`, with whether it is the user's in the low bit: end * 2 + role.
 * -1 when it breaks the grammar.
 */
function messageEnd(body: Buffer, at: number): number {
  let index = skipSpace(body, at + 1);
  let role = NOT_USER;
  if (body[index] === CLOSE_OBJECT) {
    return (index + 1) * 2 + role;
  }
  for (;;) {
    const keyEnd = body[index] === QUOTE ? stringEnd(body, index) : -1;
    if (keyEnd < 0) {
      return -1;
    }
    const isRole = stringIs(body, index, keyEnd, ROLE);
    const colon = skipSpace(body, keyEnd);
    if (body[colon] !== COLON) {
      return -1;
    }
    const start = skipSpace(body, colon + 1);
    const end = valueEnd(body, start);
    if (end < 0) {
      return -1;
    }
    if (isRole) {
      role = body[start] === QUOTE && stringIs(body, start, end, USER) ? USER_ROLE : NOT_USER;
    }
    index = skipSpace(body, end);
    if (body[index] === CLOSE_OBJECT) {
      return (index + 1) * 2 + role;
    }
    if (body[index] !== COMMA) {
      return -1;
    }
    index = skipSpace(body, index + 1);
  }
}

/** The `messages` array at `start`: its end, and the leading prompt's end (0 for none). */
function scanMessages(body: Buffer, start: number): { end: number; through: number } {
  let index = skipSpace(body, start + 1);
  if (body[index] === CLOSE_ARRAY) {
    return { end: index + 1, through: 0 };
  }
  let plain = true;
  for (;;) {
    let end: number;
    if (body[index] === OPEN_OBJECT) {
      const marked = messageEnd(body, index);
      if (marked < 0) {
        return { end: -1, through: 0 };
      }
      end = marked >> 1;
      if ((marked & 1) === USER_ROLE) {
        return { end: arrayRestEnd(body, end), through: plain ? end : 0 };
      }
    } else {
      // Not a message: this array has no leading prompt, but the walk goes on for the model.
      plain = false;
      end = valueEnd(body, index);
      if (end < 0) {
        return { end: -1, through: 0 };
      }
    }
    index = skipSpace(body, end);
    if (body[index] === CLOSE_ARRAY) {
      return { end: index + 1, through: plain ? index + 1 : 0 };
    }
    if (body[index] !== COMMA) {
      return { end: -1, through: 0 };
    }
    index = skipSpace(body, index + 1);
  }
}

/** The model, stream flag and leading prompt of a JSON object body, or undefined to parse it. */
export function scanModelRequest(
  body: Buffer,
  promptBytes: number = PROMPT_BYTES,
): ScannedRequest | undefined {
  let index = skipSpace(body, 0);
  if (body[index] !== OPEN_OBJECT) {
    return undefined;
  }
  let model: string | undefined;
  let streaming = false;
  let messages: ByteRange | undefined;
  let prompt: ByteRange | undefined;
  index = skipSpace(body, index + 1);
  if (body[index] === CLOSE_OBJECT) {
    return undefined;
  }
  for (;;) {
    const keyStart = index;
    const keyEnd = body[index] === QUOTE ? stringEnd(body, index) : -1;
    if (keyEnd < 0) {
      return undefined;
    }
    const colon = skipSpace(body, keyEnd);
    if (body[colon] !== COLON) {
      return undefined;
    }
    const start = skipSpace(body, colon + 1);
    let end: number;
    // Duplicate keys: the last one wins, as in JSON.parse.
    if (stringIs(body, keyStart, keyEnd, MESSAGES)) {
      messages = undefined;
      if (body[start] === OPEN_ARRAY) {
        const found = scanMessages(body, start);
        end = found.end;
        messages = found.through > 0 ? { start, end: found.through } : undefined;
      } else {
        end = valueEnd(body, start);
      }
    } else {
      end = valueEnd(body, start);
      if (end < 0) {
        return undefined;
      }
      if (stringIs(body, keyStart, keyEnd, MODEL)) {
        model = body[start] === QUOTE ? decodeString(body, start, end) : undefined;
      } else if (stringIs(body, keyStart, keyEnd, STREAM)) {
        streaming = bytesAre(body, start, end, TRUE);
      } else if (stringIs(body, keyStart, keyEnd, PROMPT)) {
        prompt = { start, end: Math.min(end, start + promptBytes) };
      }
    }
    if (end < 0) {
      return undefined;
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
  const leading = messages ?? prompt;
  return leading === undefined ? { model, streaming } : { model, streaming, prompt: leading };
}
