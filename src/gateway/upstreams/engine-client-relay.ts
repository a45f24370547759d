/**
 * An `http` upstream node's relay (docs/design.md D30) through the gateway's own engine client
 * (relay/proxy.ts), as a daemon node's engine is reached: it adds less on the request path than
 * undici does (docs/benchmarks.md "Upstreams and fallbacks"). The node is an engine to it whose
 * origin is the URL's, whose path prefix is the URL's path (in place of the request's `/v1`) and
 * whose key is the node's. What differs from an engine's relay is the node's: its `timeout` bounds
 * the whole reply, streams included (relay/reply-deadline.ts), in place of --reply-timeout's gap
 * limits; a 5xx before the reply began is always a refusal; and each refusal names the node in the
 * words undici's relay uses (upstream-refusals.ts).
 */
import { proxy } from '../relay/proxy.ts';
import { engineClientRefusal } from './upstream-refusals.ts';
import {
  asEngine,
  upstreamBody,
  type UpstreamRelayRequest,
  type UpstreamTarget,
} from './upstream-target.ts';

/**
 * Relays the request. Resolves once the reply has ended or been cut; rejects with a GatewayError
 * only while nothing has reached the caller.
 */
export function relayThroughEngineClient(
  target: UpstreamTarget,
  relay: UpstreamRelayRequest,
): Promise<void> {
  const engine = asEngine(target);
  return proxy(engine, {
    incoming: relay.incoming,
    outgoing: relay.outgoing,
    body: upstreamBody(target, relay.model, relay.body),
    streaming: false,
    replyTimeoutMs: target.timeoutMs,
    context: relay.facts ?? {},
    extraHeaders: relay.extraHeaders,
    ...(relay.tap === undefined ? {} : { tap: relay.tap }),
    ...(relay.cuts === undefined ? {} : { cuts: relay.cuts }),
    // An upstream node's 5xx is never relayed: the caller gets a 502 naming it, or its fallback.
    holdServerErrors: true,
    bound: { totalMs: target.timeoutMs, refuse: engineClientRefusal(target, engine.origin) },
  });
}
