/**
 * An `https` upstream node's relay (docs/design.md D30, upstream-relay.ts): through undici, a
 * well-kept TLS client (the gateway's own engine client speaks plain HTTP to engines and `http`
 * upstream nodes). The caller's Authorization is never forwarded: the node's key goes in its place,
 * when it has one. The body's `model` is rewritten only for a name the node maps to another id
 * (upstream-target.ts); every other body goes byte for byte. The reply streams through as it comes,
 * its headers as an engine's are passed on (engine-reply-headers.ts), with the gateway's own
 * (`x-svc-node`, `Server-Timing`); the upstream's own 4xx passes through with its status and body.
 * Before the first byte reaches the caller, a failure is a GatewayError naming the node
 * (upstream-refusals.ts: 502 unreachable or a 5xx, 504 past the node's `timeout`), so the caller
 * may send the request once to a fallback; after it, a failure cuts the reply and nothing is
 * retried. The node's `timeout` bounds the whole reply, streams included, and nothing else does.
 * Its bookkeeping is an engine reply's (upstream-reply.ts): the tap hears each chunk (usage), the
 * facts say when it answered and whether it failed (TTFB, the access line), and RelayCuts may end
 * it (docs/design.md D33): a shutdown ends an upstream stream with the same SSE error event a
 * local one gets.
 */
import type { Writable } from 'node:stream';

import { Agent, request } from 'undici';

import { errorBody, type GatewayError, sseError } from '../../core/http/gateway-error.ts';
import { replyHeaderList, writeReplyHead } from '../relay/engine-reply-headers.ts';
import { requestHeaderList, upstreamPath } from '../relay/proxy.ts';
import type { CuttableRelay } from '../relay/relay-cuts.ts';
import { flushed, type RelayFacts } from '../relay/upstream-reply.ts';
import { WholeEvents } from '../relay/whole-events.ts';
import { serverFailed, timedOut, unreachable } from './upstream-refusals.ts';
import {
  asEngine,
  upstreamBody,
  type UpstreamRelayRequest,
  type UpstreamTarget,
} from './upstream-target.ts';

/**
 * No gap limits of undici's own (its 300 s defaults would end a reply the node's `timeout`, 10 min
 * by default, still allows, in other words): the node's `timeout` is the one bound.
 */
const agent = new Agent({ keepAliveTimeout: 4_000, headersTimeout: 0, bodyTimeout: 0 });

/** undici's reply headers as the flat `[name, value, …]` list the engine's are read as. */
function flatHeaders(raw: Record<string, string | string[] | undefined>): string[] {
  const list: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    for (const each of value === undefined ? [] : Array.isArray(value) ? value : [value]) {
      list.push(name, each);
    }
  }
  return list;
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
export async function relayThroughUndici(
  target: UpstreamTarget,
  relay: UpstreamRelayRequest,
): Promise<void> {
  const { incoming, outgoing } = relay;
  const facts: RelayFacts = relay.facts ?? {};
  // Reached as an `http` node is (engine-client-relay.ts): one origin, one path join.
  const base = asEngine(target);
  const url = `${base.origin}${upstreamPath(base, incoming.url ?? '/')}`;
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
      throw bound.passed ? timedOut(target) : unreachable(target, base.origin, error);
    }
    facts.repliedAt = performance.now();
    if (reply.statusCode >= 500) {
      facts.upstreamError = true;
      await reply.body.dump();
      throw serverFailed(target, reply.statusCode);
    }
    if (cuts.by !== undefined) {
      await reply.body.dump();
      throw cuts.by;
    }
    const type = reply.headers['content-type'];
    cuts.eventStream = typeof type === 'string' && type.includes('text/event-stream');
    writeReplyHead(
      outgoing,
      reply.statusCode,
      replyHeaderList(flatHeaders(reply.headers), relay.extraHeaders),
    );
    // An event the gateway adds on a cut starts at a boundary (relay/whole-events.ts).
    const events = cuts.eventStream ? new WholeEvents() : undefined;
    try {
      for await (const chunk of reply.body) {
        if (wasCut()) {
          break;
        }
        relay.tap?.data(chunk as Buffer);
        const whole = events === undefined ? (chunk as Buffer) : events.take(chunk as Buffer);
        if (whole !== undefined && !outgoing.write(whole)) {
          await drained(outgoing);
        }
      }
      if (!wasCut()) {
        outgoing.end(events?.rest());
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
