/**
 * The one way svc follows an engine log (spec §4.1 rule 5): a byte cursor over the log that turns
 * each bounded slice into complete lines. `svc fleet logs`, the fleet dashboard and the serve view
 * all read through it, over the logs endpoint or the file itself (engine-log.ts): a read without
 * an offset takes the end of the log, which the reader already starts at a line start; later
 * reads start at the previous `nextOffset`, so nothing is shown twice and nothing is skipped, and
 * a partial last line waits for its newline. A log that did not exist yet is read from its start
 * once it does; a log replaced by a shorter one is read from its new tail, which the reader hands
 * back with the reply.
 */
import type { LogsResponse } from '../contract/schemas.ts';

export interface LogCursor {
  /** Where the next read starts; absent before the first read (which takes the end). */
  readonly offset?: number;
  /** A partial last line, waiting for its newline. */
  readonly carry: string;
}

export const START_CURSOR: LogCursor = { carry: '' };

export interface CursorStep {
  readonly cursor: LogCursor;
  readonly lines: readonly string[];
  /** Whether more was already written than this reply held (read again at once). */
  readonly more: boolean;
  /** Something a reader should hear about (the log restarted, no log yet). */
  readonly notice?: string;
}

/** Complete lines of `text`, and what is left after the last newline. */
function splitLines(text: string): { lines: string[]; carry: string } {
  const lines = text.split('\n');
  const carry = lines.pop() ?? '';
  return { lines: lines.map((line) => line.replace(/\r$/, '')), carry };
}

export function advance(cursor: LogCursor, reply: LogsResponse): CursorStep {
  if (reply.missing === true) {
    // No engine has written here yet: read its log from the start once it exists.
    return {
      cursor: { offset: 0, carry: '' },
      lines: [],
      more: false,
      notice: 'no engine log yet',
    };
  }
  const stale = reply.staleOffset === true;
  // A replaced log's reply is its new tail: what was carried belonged to the old one.
  const { lines, carry } = splitLines((stale ? '' : cursor.carry) + reply.content);
  return {
    cursor: { offset: reply.nextOffset, carry },
    lines,
    more: reply.nextOffset < reply.size,
    ...(stale ? { notice: 'the log was replaced; reading it from its new tail' } : {}),
  };
}
