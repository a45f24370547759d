/**
 * Bounded reads of the engine log for GET /v1/logs (spec §4.1 rule 5). A read touches at most
 * `limit` bytes wherever it starts, so a log of any size costs the same to page through: the
 * file is opened, its size taken, and one positioned read done.
 */
import { open } from 'node:fs/promises';

import type { LogsResponse } from '../contract/schemas.ts';

/** docs/design.md D11 and spec §8: 64 KiB when no limit is asked, never more than 256 KiB. */
export const DEFAULT_LOG_SLICE = 64 * 1024;
export const MAX_LOG_SLICE = 256 * 1024;

export interface LogRead {
  /** Byte position; absent reads the tail. */
  readonly offset?: number;
  /** Bytes wanted (≥ 1); capped at MAX_LOG_SLICE; absent means DEFAULT_LOG_SLICE. */
  readonly limit?: number;
}

/** A logs route's query read (docs/design.md D11), or the 400's message naming the parameter. */
export type LogQuery = { readonly read: LogRead } | { readonly refusal: string };

/** spec §4.1 rule 5: a whole number ≥ minimum, the refusal naming the parameter, or absent. */
function queryInteger(
  query: Readonly<Record<string, unknown>>,
  name: string,
  minimum: number,
): { readonly value?: number; readonly refusal?: string } {
  const raw = query[name];
  if (raw === undefined) {
    return {};
  }
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    return { refusal: `${name} must be a whole number` };
  }
  const value = Number(raw);
  return value < minimum ? { refusal: `${name} must be at least ${minimum}` } : { value };
}

/**
 * `offset` and `limit` as every logs route takes them (the daemon's, the gateway's per node): a
 * value that is not one whole number (a repeated parameter included), a negative offset or a
 * limit below 1 is refused (docs/design.md D11); a large limit is capped later, silently.
 */
export function logQueryOf(query: Readonly<Record<string, unknown>>): LogQuery {
  const offset = queryInteger(query, 'offset', 0);
  const limit = queryInteger(query, 'limit', 1);
  const refusal = offset.refusal ?? limit.refusal;
  if (refusal !== undefined) {
    return { refusal };
  }
  return {
    read: {
      ...(offset.value === undefined ? {} : { offset: offset.value }),
      ...(limit.value === undefined ? {} : { limit: limit.value }),
    },
  };
}

/** Length of `bytes` without a trailing incomplete UTF-8 sequence, so a slice never splits a character. */
export function completeUtf8Length(bytes: Uint8Array): number {
  let end = bytes.length;
  // Walk back over at most 3 continuation bytes to the lead byte of the last sequence.
  for (let back = 1; back <= Math.min(4, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) {
      continue;
    }
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    end = needed > back ? bytes.length - back : bytes.length;
    break;
  }
  return end;
}

export async function readLogSlice(path: string, request: LogRead = {}): Promise<LogsResponse> {
  const limit = Math.min(request.limit ?? DEFAULT_LOG_SLICE, MAX_LOG_SLICE);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { content: '', nextOffset: 0, size: 0, path, missing: true };
    }
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const stale = request.offset !== undefined && request.offset > size;
    const fromTail = request.offset === undefined || stale;
    let start = fromTail ? Math.max(0, size - limit) : (request.offset ?? 0);
    const length = Math.min(limit, size - start);
    const buffer = Buffer.alloc(Math.max(0, length));
    const { bytesRead } =
      length > 0 ? await handle.read(buffer, 0, length, start) : { bytesRead: 0 };
    let slice = buffer.subarray(0, bytesRead);

    if (fromTail && start > 0) {
      // A tail starts at a line start: drop the partial first line when there is a later one.
      const newline = slice.indexOf(0x0a);
      if (newline >= 0 && newline < slice.length - 1) {
        slice = slice.subarray(newline + 1);
        start += newline + 1;
      }
    }
    slice = slice.subarray(0, completeUtf8Length(slice));
    return {
      content: slice.toString('utf8'),
      nextOffset: start + slice.length,
      size,
      path,
      ...(stale ? { staleOffset: true } : {}),
    };
  } finally {
    await handle.close();
  }
}
