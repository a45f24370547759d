/**
 * A slice of an engine log with every known secret (the engine keys and tokens a fleet names)
 * masked before it leaves svc, by log-tail.ts's redactSecrets, and safe at the slice's edges, where
 * a byte cursor (spec §4.1 rule 5) can cut a secret in two:
 * - a secret the slice's end cuts is held back: `nextOffset` stops where it begins, so the next
 *   read has it whole and masks it;
 * - the rest of a secret begun before the slice's start (an offset a caller chose) is masked, told
 *   by the text just before the slice (`before`; when that is unknown, a head that could be such a
 *   rest is masked).
 * Masks are `*` byte for byte, so the content keeps its length and `nextOffset` minus the
 * content's byte length is still where the slice starts (spec §2.6). Pure.
 */
import type { LogsResponse } from '../contract/schemas.ts';
import { redactSecrets } from './log-tail.ts';

const mask = (text: string): string => '*'.repeat(Buffer.byteLength(text));

/** Where the slice starts in the log. */
export function sliceStart(slice: LogsResponse): number {
  return slice.nextOffset - Buffer.byteLength(slice.content);
}

/**
 * Characters of `content`'s head that are the rest of a secret begun before it: the longest such.
 * `before` (the text ending where `content` starts) undefined counts every possible rest.
 */
function continuedHead(
  content: string,
  secrets: readonly string[],
  before: string | undefined,
): number {
  let longest = 0;
  for (const secret of secrets) {
    for (let split = 1; split < secret.length; split += 1) {
      const rest = secret.slice(split);
      const cut = content.startsWith(rest)
        ? rest.length
        : rest.startsWith(content)
          ? content.length
          : 0;
      if (cut > longest && (before === undefined || before.endsWith(secret.slice(0, split)))) {
        longest = cut;
      }
    }
  }
  return longest;
}

/** Characters at the end of `text` that may begin a secret (a whole one included): the longest. */
function openingTail(text: string, secrets: readonly string[]): number {
  let longest = 0;
  for (const secret of secrets) {
    for (let length = Math.min(secret.length, text.length); length > longest; length -= 1) {
      if (text.endsWith(secret.slice(0, length))) {
        longest = length;
        break;
      }
    }
  }
  return longest;
}

const usable = (secrets: readonly string[]): string[] =>
  secrets.filter((secret) => secret.length > 0);

/**
 * Bytes of the log just before the slice that redactLogSlice needs to tell whether the slice's
 * head finishes a secret: 0 when it cannot (the slice starts the log, or its head could finish
 * none), so most reads need no second one.
 */
export function contextBytes(slice: LogsResponse, secrets: readonly string[]): number {
  const kept = usable(secrets);
  const start = sliceStart(slice);
  if (start <= 0 || slice.content === '' || continuedHead(slice.content, kept, undefined) === 0) {
    return 0;
  }
  return Math.min(start, Math.max(...kept.map((secret) => Buffer.byteLength(secret))) - 1);
}

/** The slice as it may leave svc: `before` is the text ending where it starts (contextBytes). */
export function redactLogSlice(
  slice: LogsResponse,
  secrets: readonly string[],
  before?: string,
): LogsResponse {
  const kept = usable(secrets);
  if (kept.length === 0 || slice.content === '') {
    return slice;
  }
  const head = sliceStart(slice) <= 0 ? 0 : continuedHead(slice.content, kept, before);
  const rest = slice.content.slice(head);
  const held = openingTail(rest, kept);
  if (held === rest.length) {
    // Nothing after the head but what may begin a secret (a tiny limit, an engine mid-line):
    // masked whole rather than held, so a reader always moves on; the next read's head is then
    // told from this slice's end.
    return { ...slice, content: mask(slice.content) };
  }
  const shown = rest.slice(0, rest.length - held);
  return {
    ...slice,
    content: mask(slice.content.slice(0, head)) + redactSecrets(shown, kept, mask),
    nextOffset: slice.nextOffset - Buffer.byteLength(rest.slice(rest.length - held)),
  };
}
