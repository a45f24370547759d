/**
 * Forwards one model request to the engine chosen for it (spec §4.2 rule 4): the body byte for
 * byte, the caller's Authorization replaced by the engine key (or removed), the reply's status,
 * headers and body returned as they come, each chunk written the moment it arrives. A caller that
 * goes away aborts the upstream request. No retry, on this node or another. A streamed reply has
 * no time limit; a non-streamed one may take up to --reply-timeout (undici's own 300 s defaults
 * would turn a long completion into a 502).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Agent, type Dispatcher, errors } from 'undici';

import { drainOrClose } from './drain.ts';
import { errorType, GatewayError } from './gateway-error.ts';
import type { EngineTarget } from './route.ts';
import { formatDurationText } from './wake.ts';
import { sseError } from './wake-progress.ts';

/** RFC 9110 §7.6.1 hop-by-hop headers, plus what the proxy itself sets. */
const DROPPED_REQUEST_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'authorization',
  'content-length',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  // Node has already answered 100-continue; undici refuses to send the header on.
  'expect',
]);
const DROPPED_REPLY_HEADERS = new Set([
  // The gateway's own CORS policy (GUIDE D22) answers for the engine's.
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

/** One pool for all engines; keep-alive stays well under llama-server's own 5 s. */
const agent: Dispatcher = new Agent({
  keepAliveTimeout: 4_000,
  keepAliveMaxTimeout: 4_000,
  pipelining: 1,
  // No pool-wide limit: each request sets its own (upstreamTimeouts).
  headersTimeout: 0,
  bodyTimeout: 0,
});

export interface ProxyRequest {
  readonly incoming: IncomingMessage;
  readonly outgoing: ServerResponse;
  readonly body: Buffer;
  /** `stream: true` in the body: llama-server closes such connections after the reply. */
  readonly streaming: boolean;
  /** How long a non-streamed reply may take (--reply-timeout). */
  readonly replyTimeoutMs: number;
  /** Where the metrics learn when the engine answered and whether it failed (gateway-metrics.ts). */
  readonly context: { repliedAt?: number; upstreamError?: boolean };
  /** Headers the gateway adds to the reply (x-svc-node, Server-Timing, CORS). */
  readonly extraHeaders: Readonly<Record<string, string>>;
}

/**
 * undici's per-request limits: none for a stream (it may run as long as it produces), the reply
 * timeout for the headers and for each body gap of anything else (0 disables a limit in undici).
 */
export function upstreamTimeouts(
  streaming: boolean,
  replyTimeoutMs: number,
): { headersTimeout: number; bodyTimeout: number } {
  return streaming
    ? { headersTimeout: 0, bodyTimeout: 0 }
    : { headersTimeout: replyTimeoutMs, bodyTimeout: replyTimeoutMs };
}

/** The SSE error event for an engine error that arrives after wake progress sent the headers. */
export function engineErrorEvent(status: number, text: string, node: string): string {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
      return sseError(JSON.stringify(parsed));
    }
  } catch {
    // not JSON: wrapped below
  }
  return sseError(
    JSON.stringify({
      error: {
        message: `the engine on ${node} answered ${status}`,
        type: errorType(status),
        code: 'upstream_error',
      },
    }),
  );
}

/** The engine-side path: the gateway serves /v1/...; the engine's own prefix replaces /v1. */
function upstreamPath(target: EngineTarget, incomingUrl: string): string {
  return `${target.pathPrefix}${incomingUrl.startsWith('/v1') ? incomingUrl.slice(3) : incomingUrl}`;
}

/** Whether the caller's connection is gone (a function, so the check is read afresh each time). */
function gone(response: ServerResponse): boolean {
  return response.destroyed;
}

export async function proxy(target: EngineTarget, request: ProxyRequest): Promise<void> {
  const { incoming, outgoing, body } = request;
  if (outgoing.destroyed || incoming.socket.destroyed) {
    // The caller left while the request waited (a wake, a loading engine): ask the engine nothing.
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined && !DROPPED_REQUEST_HEADERS.has(name)) {
      headers[name] = value;
    }
  }
  if (target.key !== undefined) {
    headers['authorization'] = `Bearer ${target.key}`;
  }

  const abort = new AbortController();
  const onClose = (): void => {
    if (!outgoing.writableFinished) {
      abort.abort();
    }
  };
  outgoing.once('close', onClose);

  let reply: Dispatcher.ResponseData;
  try {
    reply = await agent.request({
      origin: target.origin,
      path: upstreamPath(target, incoming.url ?? '/'),
      method: 'POST',
      headers,
      body,
      signal: abort.signal,
      ...upstreamTimeouts(request.streaming, request.replyTimeoutMs),
      // llama-server closes a connection after a streamed reply without saying so; never
      // reuse one, so no later request lands on a dead socket (issue 7: no spurious 502s).
      reset: request.streaming,
    });
  } catch (error) {
    outgoing.off('close', onClose);
    if (abort.signal.aborted) {
      return;
    }
    request.context.upstreamError = true;
    if (error instanceof errors.HeadersTimeoutError) {
      throw new GatewayError(
        504,
        `the engine on ${target.node.name} did not answer within ${formatDurationText(request.replyTimeoutMs)} (--reply-timeout)`,
        { code: 'reply_timeout' },
      );
    }
    throw new GatewayError(
      502,
      `the engine on ${target.node.name} failed to answer: ${(error as Error).message}`,
    );
  }

  request.context.repliedAt = performance.now();
  const replyHeaders: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.headers)) {
    if (value !== undefined && !DROPPED_REPLY_HEADERS.has(name.toLowerCase())) {
      replyHeaders[name] = value;
    }
  }
  if (outgoing.headersSent) {
    // Wake progress already sent 200 text/event-stream: an engine error becomes one SSE event.
    if (reply.statusCode >= 400) {
      outgoing.off('close', onClose);
      const text = await reply.body.text().catch(() => '');
      outgoing.end(engineErrorEvent(reply.statusCode, text, target.node.name));
      return;
    }
  } else {
    // Headers leave with the first body chunk (one write, not two), as soon as the engine sends it.
    outgoing.writeHead(reply.statusCode, { ...replyHeaders, ...request.extraHeaders });
  }
  try {
    for await (const chunk of reply.body) {
      // A slow reader holds the engine back rather than growing a buffer here.
      if (!outgoing.write(chunk as Buffer) && !gone(outgoing)) {
        await drainOrClose(outgoing);
      }
    }
    outgoing.end();
  } catch (error) {
    // The caller left (we aborted) or the engine broke off mid-reply: end what was sent.
    if (!(error instanceof errors.RequestAbortedError) && !abort.signal.aborted) {
      request.context.upstreamError = true;
      outgoing.destroy(error as Error);
      return;
    }
    outgoing.destroy();
  } finally {
    outgoing.off('close', onClose);
  }
}
