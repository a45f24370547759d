/**
 * One request relayed to an upstream node (docs/design.md D30), through the client its URL's scheme
 * gets: `https` through undici (undici-relay.ts), a well-kept TLS client; `http` through the
 * gateway's own engine client (engine-client-relay.ts), which adds less per request, measured
 * (docs/benchmarks.md "Upstreams and fallbacks"). Either keeps every rule of an upstream node: the
 * caller's Authorization replaced by the node's key, the `model` rewritten only where mapped, the
 * upstream's 4xx passed on with `x-svc-node`, a refusal naming the node before the first byte only
 * (upstream-refusals.ts), the node's `timeout` over the whole reply, and the bookkeeping, cuts and
 * backpressure of an engine's reply.
 */
import { relayThroughEngineClient } from './engine-client-relay.ts';
import { relayThroughUndici } from './undici-relay.ts';
import type { UpstreamRelayRequest, UpstreamTarget } from './upstream-target.ts';

/** Which client relays to an upstream node at `url` (its scheme was checked by the fleet file). */
export function upstreamClient(url: string): 'engine-client' | 'undici' {
  return /^http:/i.test(url) ? 'engine-client' : 'undici';
}

/**
 * Relays the request. Resolves once the reply has ended or been cut; rejects with a GatewayError
 * only while nothing has reached the caller.
 */
export function relayUpstream(target: UpstreamTarget, relay: UpstreamRelayRequest): Promise<void> {
  return upstreamClient(target.url) === 'engine-client'
    ? relayThroughEngineClient(target, relay)
    : relayThroughUndici(target, relay);
}
