/**
 * Forwards one model request to the engine chosen for it (spec §4.2 rule 4): the body byte for
 * byte, the caller's Authorization replaced by the engine key (or removed), the reply's status,
 * headers and body returned as they come, each chunk written the moment it arrives
 * (upstream-reply.ts). A caller that goes away aborts the upstream request. No retry on another
 * node; on this one, only the single resend of a request whose kept connection had closed. A
 * streamed reply has no time limit; a non-streamed one may take up to --reply-timeout.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { EngineClient, type EngineRequest } from './engine-client.ts';
import { holdingServerErrors } from './held-server-errors.ts';
import type { RelayCuts } from './relay-cuts.ts';
import { withDeadline } from './reply-deadline.ts';
import type { EngineBody } from './streamed-body.ts';
import {
  type RelayFacts,
  type RelayRefusal,
  type ReplyTap,
  UpstreamReply,
} from './upstream-reply.ts';

/**
 * The engine a request goes to, as routing chose it (core/fleet/routing's EngineTarget fits):
 * the relay knows an engine's address and key, not the fleet.
 */
export interface RelayEngine {
  readonly node: { readonly name: string };
  /** `http://host:port` of the engine. */
  readonly origin: string;
  /** The engine's OpenAI path prefix, put in place of the request's leading /v1. */
  readonly pathPrefix: string;
  /** The key to present to the engine, when it is gated. */
  readonly key?: string;
}

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
  // Node has already answered 100-continue; the engine must not wait for a go-ahead.
  'expect',
]);

/**
 * One client for all engines; kept connections are reused for 4 s, under llama-server's own 5 s,
 * and after streamed replies too: the one that llama-server closed is detected when a request on
 * it fails before any reply byte, and that request is sent once more (upstream-reply.ts).
 */
const engines = new EngineClient();

export interface ProxyRequest {
  readonly incoming: IncomingMessage;
  readonly outgoing: ServerResponse;
  /** A form's is streamed (streamed-body.ts): sent as it arrives, never twice. */
  readonly body: EngineBody;
  /** `stream: true` in the body: no reply timeout applies. */
  readonly streaming: boolean;
  /** How long a non-streamed reply may take (--reply-timeout). */
  readonly replyTimeoutMs: number;
  /** Where the metrics learn when the engine answered and whether it failed (gateway-metrics.ts). */
  readonly context: RelayFacts;
  /** Headers the gateway adds to the reply (x-svc-node, Server-Timing), flat `[name, value, …]`. */
  readonly extraHeaders: readonly string[];
  /** Hears the reply's chunks as they pass (the gateway reads usage from them). */
  readonly tap?: ReplyTap;
  /** Where the gateway finds the relay to end it itself (relay-cuts.ts). */
  readonly cuts?: RelayCuts;
  /** A 5xx before the reply began is a refusal, not a reply: a fallback will answer (D30). */
  readonly holdServerErrors?: boolean;
  /** An upstream node's terms, in place of --reply-timeout's (docs/design.md D30). */
  readonly bound?: ReplyBound;
}

/**
 * An upstream node's reply (docs/design.md D30): bounded as a whole by the node's `timeout`,
 * streams included, with no gap limits, and its failures before the reply began worded for it.
 */
export interface ReplyBound {
  readonly totalMs: number;
  readonly refuse: RelayRefusal;
}

/** No gap limits: a bound on the whole reply (reply-deadline.ts) stands in for them. */
const NO_GAP_LIMITS = { headersTimeout: 0, bodyTimeout: 0 };

/**
 * The engine client's limits: none for a stream (it may run as long as it produces), the reply
 * timeout for the headers and for each body gap of anything else (0 disables a limit).
 */
export function upstreamTimeouts(
  streaming: boolean,
  replyTimeoutMs: number,
): { headersTimeout: number; bodyTimeout: number } {
  return streaming
    ? { headersTimeout: 0, bodyTimeout: 0 }
    : { headersTimeout: replyTimeoutMs, bodyTimeout: replyTimeoutMs };
}

/** The engine-side path: the gateway serves /v1/...; the engine's own prefix replaces /v1. */
export function upstreamPath(target: Pick<RelayEngine, 'pathPrefix'>, incomingUrl: string): string {
  return `${target.pathPrefix}${incomingUrl.startsWith('/v1') ? incomingUrl.slice(3) : incomingUrl}`;
}

/**
 * The caller's raw headers as the flat `[name, value, …]` list the engine client takes, less the hop-by-hop
 * ones and the caller's Authorization, plus the engine key when the engine is gated.
 */
export function requestHeaderList(raw: readonly string[], key: string | undefined): string[] {
  const list: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index] as string;
    if (!DROPPED_REQUEST_HEADERS.has(name.toLowerCase())) {
      list.push(name, raw[index + 1] as string);
    }
  }
  if (key !== undefined) {
    list.push('authorization', `Bearer ${key}`);
  }
  return list;
}

/** Relays the engine's reply to the caller; rejects (a GatewayError) only before it began. */
export async function proxy(target: RelayEngine, request: ProxyRequest): Promise<void> {
  const { incoming, outgoing } = request;
  if (outgoing.destroyed || incoming.socket.destroyed) {
    // The caller left while the request waited (a wake, a loading engine): ask the engine nothing.
    return;
  }
  const options: EngineRequest = {
    origin: target.origin,
    path: upstreamPath(target, incoming.url ?? '/'),
    method: 'POST',
    headers: requestHeaderList(incoming.rawHeaders, target.key),
    body: request.body,
    ...(request.bound === undefined
      ? upstreamTimeouts(request.streaming, request.replyTimeoutMs)
      : NO_GAP_LIMITS),
  };
  const held = request.holdServerErrors === true ? holdingServerErrors(engines) : engines;
  const relay = new UpstreamReply(
    outgoing,
    {
      node: target.node.name,
      replyTimeoutMs: request.replyTimeoutMs,
      extraHeaders: request.extraHeaders,
      facts: request.context,
      ...(request.tap === undefined ? {} : { tap: request.tap }),
      ...(request.bound === undefined ? {} : { refuse: request.bound.refuse }),
    },
    request.bound === undefined ? held : withDeadline(held, request.bound.totalMs),
    options,
  );
  const untrack = request.cuts?.track(target.node.name, relay);
  const refusal = await relay.start().finally(untrack);
  if (refusal !== undefined) {
    throw refusal;
  }
}
