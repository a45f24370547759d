/**
 * The engine's reply headers as the relay passes them on (RFC 9110 §7.6.1: hop-by-hop ones
 * dropped, the gateway's own added) and what they say about the reply.
 */

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
