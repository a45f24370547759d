/**
 * One model request's relay to a node (spec §4.2 rule 4): to an engine through the gateway's own
 * client (proxy.ts), or to an upstream node through the client its URL's scheme gets
 * (upstream-relay.ts, docs/design.md D30), with the headers that say where it went and why, and
 * the request's books (which node, the usage tap, whether it failed) begun afresh for each relay,
 * so a retry on a fallback starts clean.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { GatewayError } from '../../core/http/gateway-error.ts';
import type { RelayTo } from '../fallbacks/failed-retry.ts';
import { proxy } from '../relay/proxy.ts';
import { type EngineBody, isStreamed } from '../relay/streamed-body.ts';
import type { RelayFacts } from '../relay/upstream-reply.ts';
import type { GatewayScheduler } from '../scheduling/gateway-scheduler.ts';
import { relayUpstream } from '../upstreams/upstream-relay.ts';
import { ReplyTail } from '../usage/reply-usage.ts';
import { proxiedReplyHeaders, type ReplyTiming } from './reply-headers.ts';

/** What the access line, the metrics and the usage learn of the relay (complete.ts's context). */
export interface RelayBooks extends RelayFacts {
  node?: string;
  tail?: ReplyTail;
}

export interface NodeRelayRequest {
  readonly incoming: IncomingMessage;
  readonly outgoing: ServerResponse;
  /** The body as the caller sent it, and as the chosen node gets it (docs/design.md D31). */
  readonly body: Buffer;
  /** A form's is streamed (relay/streamed-body.ts): passed on as it arrives, only once. */
  readonly sent: EngineBody;
  /** A streamed form's whole body, read when an upstream node's relay needs it in one piece. */
  readonly whole?: () => Promise<Buffer>;
  /** The name the caller asked for (an upstream node maps it itself). */
  readonly model: string;
  readonly streaming: boolean;
  readonly replyTimeoutMs: number;
  readonly timing: ReplyTiming;
  readonly books: RelayBooks;
}

export function nodeRelay(scheduling: GatewayScheduler, request: NodeRelayRequest): RelayTo {
  const { incoming, outgoing, books } = request;
  /** A streamed body went to an engine: it is gone, and a retry elsewhere has nothing to send. */
  let streamedOut = false;
  const relayTo = async (...[node, fallback, holdServerErrors]: Parameters<RelayTo>) => {
    if (streamedOut) {
      throw new GatewayError(
        502,
        `the engine on ${books.node ?? 'its node'} failed to answer, and the form, passed on as it arrived, cannot be sent again to ${node}`,
      );
    }
    // A retry starts afresh: the failed node's reply left nothing the caller saw (its failure is
    // counted as the retry goes out: failed-retry.ts), and a node that cannot be reached now is
    // this relay's failure, booked under its own name.
    books.node = node;
    books.upstreamError = false;
    books.tail = new ReplyTail();
    const target = scheduling.target(node);
    const extraHeaders = [
      ...proxiedReplyHeaders(node, request.timing),
      // docs/design.md D30: a fallback's reply says why it answered.
      ...(fallback === undefined ? [] : ['x-svc-fallback', fallback]),
    ];
    if (target.node.kind === 'upstream') {
      await relayUpstream(target.node, {
        incoming,
        outgoing,
        body: request.whole === undefined ? request.body : await request.whole(),
        model: request.model,
        extraHeaders,
        facts: books,
        tap: books.tail,
        cuts: scheduling.relays,
      });
      return;
    }
    // Only the chosen node is an engine: a retry goes to an upstream node.
    streamedOut = isStreamed(request.sent);
    await proxy(target, {
      incoming,
      outgoing,
      body: request.sent,
      streaming: request.streaming,
      replyTimeoutMs: request.replyTimeoutMs,
      context: books,
      tap: books.tail,
      cuts: scheduling.relays,
      extraHeaders,
      holdServerErrors,
    });
  };
  return Object.assign(relayTo, { resendable: () => !streamedOut });
}
