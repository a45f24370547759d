/**
 * One node's engine log as `svc fleet logs` reads it, pure: a byte cursor over the node's log
 * (spec §4.1 rule 5) that turns each reply into complete lines. The first read takes the end of
 * the log and drops its cut first line; later reads start at the previous `nextOffset`, so nothing
 * is printed twice and nothing is skipped. A log that shrank (`staleOffset`) or did not exist yet
 * restarts from its beginning.
 */
import type { LogsResponse } from '../core/contract/schemas.ts';

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
  if (reply.staleOffset === true) {
    return {
      cursor: { offset: reply.nextOffset, carry: '' },
      lines: [],
      more: reply.nextOffset < reply.size,
      notice: 'the log was replaced; reading it from its new end',
    };
  }
  const start = reply.nextOffset - Buffer.byteLength(reply.content);
  let text = cursor.carry + reply.content;
  if (cursor.offset === undefined && start > 0) {
    // The tail starts mid-line: the cut line is not shown half.
    const newline = text.indexOf('\n');
    text = newline < 0 ? '' : text.slice(newline + 1);
  }
  const parts = text.split('\n');
  const carry = parts.pop() ?? '';
  return {
    cursor: { offset: reply.nextOffset, carry },
    lines: parts.map((line) => line.replace(/\r$/, '')),
    more: reply.nextOffset < reply.size,
  };
}

/** `node | line` when several nodes are shown, names padded to one width; the bare line for one. */
export function prefixer(names: readonly string[]): (node: string, line: string) => string {
  if (names.length <= 1) {
    return (_node, line) => line;
  }
  const width = Math.max(...names.map((name) => name.length));
  return (node, line) => `${node.padEnd(width)} | ${line}`;
}
