/**
 * One request relayed to an upstream node (docs/design.md D30): through undici, so an `https` URL
 * gets a well-kept TLS client (the relay's own HTTP/1.1 client speaks plain HTTP to engines). The
 * caller's Authorization is never forwarded: the node's key goes in its place, when it has one.
 * The body's `model` is rewritten only for a name the node maps to another id (body-rewrite.ts);
 * every other body goes byte for byte. The reply streams through as it comes, with the gateway's
 * own headers (`x-svc-node`, `Server-Timing`); the upstream's own 4xx passes through with its
 * status and body. Before the first byte reaches the caller, a failure is a GatewayError naming the
 * node (502 unreachable or a 5xx, 504 past the node's `timeout`), so the caller may send the request
 * once to a fallback; after it, a failure cuts the reply and nothing is retried. Its bookkeeping is
 * an engine reply's (upstream-reply.ts): the tap hears each chunk (usage), the facts say when it
 * answered and whether it failed (TTFB, the access line), and RelayCuts may end it (docs/design.md
 * D33): a shutdown ends an upstream stream with the same SSE error event a local one gets.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';

import { Agent, request } from 'undici';

import { errorBody, GatewayError, sseError } from '../../core/http/gateway-error.ts';
import { rewriteBody } from '../bodies/body-rewrite.ts';
import { requestHeaderList } from '../relay/proxy.ts';
import type { CuttableRelay, RelayCuts } from '../relay/relay-cuts.ts';
import { flushed, type RelayFacts, type ReplyTap } from '../relay/upstream-reply.ts';

/** An upstream node as the relay needs it: its base URL, key, model map and reply bound. */
export interface UpstreamTarget {
  readonly name: string;
  readonly url: string;
  readonly apiKey?: string;
  readonly models: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

export interface UpstreamRelayRequest {
  readonly incoming: IncomingMessage;
  readonly outgoing: ServerResponse;
  readonly body: Buffer;
  /** The served name the caller asked for. */
  readonly model: string;
  /** Headers the gateway adds to the reply, flat `[name, value, …]`. */
  readonly extraHeaders: readonly string[];
  /** When the reply's headers arrived, whether it failed, whether the gateway cut it. */
  readonly facts?: RelayFacts;
  /** Hears each chunk passed on to the caller (docs/design.md D29 usage). */
  readonly tap?: ReplyTap;
  /** Where the gateway finds the relay to end it itself (relay-cuts.ts). */
  readonly cuts?: RelayCuts;
}

/** Reply headers the relay sets itself, or that belong to one hop. */
const DROPPED_REPLY_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'x-svc-node',
  'x-svc-fallback',
  'server-timing',
]);

const agent = new Agent({ keepAliveTimeout: 4_000 });

/** The body as the upstream gets it: renamed only where the node maps the name (D30). */
export function upstreamBody(target: UpstreamTarget, model: string, body: Buffer): Buffer {
  const id = Object.hasOwn(target.models, model) ? target.models[model] : undefined;
  return id === undefined || id === model ? body : rewriteBody(body, { model: id });
}

function replyHeaders(raw: Record<string, string | string[] | undefined>): [string, string][] {
  const list: [string, string][] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || DROPPED_REPLY_HEADERS.has(name.toLowerCase())) {
      continue;
    }
    for (const each of Array.isArray(value) ? value : [value]) {
      list.push([name, each]);
    }
  }
  return list;
}

function pairs(flat: readonly string[]): [string, string][] {
  const list: [string, string][] = [];
  for (let index = 0; index + 1 < flat.length; index += 2) {
    list.push([flat[index] as string, flat[index + 1] as string]);
  }
  return list;
}

/** Why undici failed, in words that hold no header and so no key. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  const code = (error as { code?: string }).code ?? cause?.code;
  return code ?? (error as Error).name;
}

/**
 * Until `outgoing` takes more, or is gone: a slow reader holds the upstream back (the loop reads
 * no further) rather than growing a buffer here, as an engine relay does (upstream-reply.ts).
 */
export function drained(outgoing: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      outgoing.off('drain', done);
      outgoing.off('close', done);
      resolve();
    };
    outgoing.on('drain', done);
    outgoing.on('close', done);
  });
}

/**
 * Relays the request. Resolves once the reply has ended or been cut; rejects with a GatewayError
 * only while nothing has reached the caller.
 */
export async function relayUpstream(
  target: UpstreamTarget,
  relay: UpstreamRelayRequest,
): Promise<void> {
  const { incoming, outgoing } = relay;
  const facts: RelayFacts = relay.facts ?? {};
  const base = new URL(target.url);
  const path = incoming.url ?? '/';
  const url = `${base.origin}${base.pathname}${path.startsWith('/v1') ? path.slice(3) : path}`;
  const controller = new AbortController();
  const bound = { passed: false };
  const timer = setTimeout(() => {
    bound.passed = true;
    controller.abort();
  }, target.timeoutMs);
  const cuts = {
    by: undefined as GatewayError | undefined,
    eventStream: false,
    callerGone: false,
  };
  const onClose = (): void => {
    if (!outgoing.writableFinished) {
      cuts.callerGone = true;
      controller.abort();
    }
  };
  outgoing.on('close', onClose);
  // As an engine relay is cut (upstream-reply.ts cut): a stream ends with one SSE error event.
  const cuttable: CuttableRelay = {
    cut: (reason) => {
      cuts.by = reason;
      facts.stopped = true;
      controller.abort();
      if (!outgoing.headersSent) {
        return Promise.resolve();
      }
      if (cuts.eventStream && !outgoing.writableEnded && !outgoing.destroyed) {
        outgoing.end(sseError(errorBody(reason)));
      } else {
        outgoing.destroy();
      }
      return flushed(outgoing);
    },
  };
  const untrack = relay.cuts?.track(target.name, cuttable);
  // Read afresh each time: a cut may come between any two awaits.
  const wasCut = (): boolean => cuts.by !== undefined;
  const headers = requestHeaderList(incoming.rawHeaders, target.apiKey);
  try {
    let reply;
    try {
      reply = await request(url, {
        method: 'POST',
        dispatcher: agent,
        signal: controller.signal,
        headers,
        body: upstreamBody(target, relay.model, relay.body),
      });
    } catch (error) {
      if (cuts.by !== undefined) {
        throw cuts.by;
      }
      facts.upstreamError = !cuts.callerGone;
      throw bound.passed
        ? new GatewayError(
            504,
            `upstream node "${target.name}" did not answer within its timeout (${String(target.timeoutMs)} ms)`,
            { code: 'reply_timeout' },
          )
        : new GatewayError(
            502,
            `upstream node "${target.name}" is unreachable at ${base.origin}: ${causeOf(error)}`,
            { code: 'upstream_error' },
          );
    }
    facts.repliedAt = performance.now();
    if (reply.statusCode >= 500) {
      facts.upstreamError = true;
      await reply.body.dump();
      throw new GatewayError(
        502,
        `upstream node "${target.name}" failed: it answered HTTP ${String(reply.statusCode)}`,
        { code: 'upstream_error' },
      );
    }
    if (cuts.by !== undefined) {
      await reply.body.dump();
      throw cuts.by;
    }
    const type = reply.headers['content-type'];
    cuts.eventStream = typeof type === 'string' && type.includes('text/event-stream');
    outgoing.writeHead(reply.statusCode, [
      ...replyHeaders(reply.headers),
      ...pairs(relay.extraHeaders),
    ]);
    try {
      for await (const chunk of reply.body) {
        if (wasCut()) {
          break;
        }
        relay.tap?.data(chunk as Buffer);
        if (!outgoing.write(chunk as Buffer)) {
          await drained(outgoing);
        }
      }
      if (!wasCut()) {
        outgoing.end();
      }
    } catch {
      if (!wasCut()) {
        // After the first byte nothing is retried: the caller sees the reply cut (D30).
        facts.upstreamError = !cuts.callerGone;
        outgoing.destroy();
      }
    }
  } finally {
    clearTimeout(timer);
    outgoing.off('close', onClose);
    untrack?.();
  }
}
