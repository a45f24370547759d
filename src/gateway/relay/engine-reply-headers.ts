/**
 * The engine's reply headers as the relay passes them on (RFC 9110 §7.6.1: hop-by-hop ones
 * dropped, the gateway's own added) and what they say about the reply; an upstream node's too,
 * through either of its clients (docs/design.md D30).
 */
import type { ServerResponse } from 'node:http';

/** Reply headers the gateway does not pass on (RFC 9110 §7.6.1 hop-by-hop, and its own CORS). */
const DROPPED_REPLY_HEADERS = new Set([
  // The gateway's own CORS policy (docs/design.md D22) answers for the engine's.
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-expose-headers',
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // The gateway's own say where this reply came from: a node that is itself a gateway (an
  // upstream node may be) must not name its own nodes or timings in their place.
  'x-svc-node',
  'x-svc-fallback',
  'server-timing',
]);

/**
 * The engine's raw reply headers as the flat `[name, value, …]` list `writeHead` takes, less the
 * dropped ones, then the gateway's own. Names keep the engine's spelling; duplicates stay apart.
 */
export function replyHeaderList(raw: readonly string[], extra: readonly string[]): string[] {
  const list: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index] as string;
    if (!DROPPED_REPLY_HEADERS.has(name.toLowerCase())) {
      list.push(name, raw[index + 1] as string);
    }
  }
  for (const header of extra) {
    list.push(header);
  }
  return list;
}

/** Whether the engine's reply headers say it streams server-sent events. */
export function isEventStream(rawHeaders: readonly string[]): boolean {
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] as string).toLowerCase() === 'content-type') {
      return (rawHeaders[index + 1] as string).toLowerCase().startsWith('text/event-stream');
    }
  }
  return false;
}

/** Writes the reply's status and headers, after any the gateway set first (a browser's CORS). */
export function writeReplyHead(outgoing: ServerResponse, status: number, list: string[]): void {
  if (outgoing.getHeaderNames().length === 0) {
    outgoing.writeHead(status, list);
    return;
  }
  // writeHead would replace rather than add, so a repeated header (two set-cookie) would lose
  // one. Append each instead.
  for (let index = 0; index + 1 < list.length; index += 2) {
    outgoing.appendHeader(list[index] as string, list[index + 1] as string);
  }
  outgoing.writeHead(status);
}
