/**
 * docs/design.md D30 `failed`: a request whose chosen node failed before the first byte of its
 * reply reached the caller (the connection refused or reset, or a 5xx before any body: a 502 from
 * the relay) is sent once more, to its model's fallback, with `x-svc-fallback: failed`. Never after
 * the first byte (wake progress included: a cut stream stays cut), never twice, never from the
 * fallback to itself, never for a caller without the `upstreams` right (docs/design.md D29); the
 * pure rule is core's retryOnFailure. A timeout (504) or the gateway ending the relay itself (503)
 * is not a failure of this kind: it is answered as it is.
 */
import type { ServerResponse } from 'node:http';

import type { FallbackReason, FleetFallback } from '../../core/fleet/file/fleet-file.ts';
import { retryOnFailure } from '../../core/fleet/scheduling/requests/upstream-choice.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';

/**
 * One relay of the request to `node`; `holdServerErrors`: a 5xx before the reply is a refusal.
 * `resendable` says whether the body can still be sent elsewhere (a form passed on as it arrived
 * cannot): a relay that cannot refuses the retry itself, naming both nodes.
 */
export type RelayTo = ((
  node: string,
  fallback: FallbackReason | undefined,
  holdServerErrors: boolean,
) => Promise<void>) & { readonly resendable?: () => boolean };

export interface FailedRetryRequest {
  /** The model as the scheduler placed it (the fallbacks are keyed by it). */
  readonly model: string;
  /** The node the scheduler chose, and why, when it was already a fallback. */
  readonly node: string;
  readonly fallback?: FallbackReason;
  readonly mayUseUpstreams: boolean;
  readonly outgoing: ServerResponse;
}

export interface FailedRetryDeps {
  readonly fallbacks?: ReadonlyMap<string, FleetFallback>;
  /** Counts the retry (svc_gateway_fallbacks_total{reason="failed"}). */
  readonly fellBack: (model: string, reason: FallbackReason) => void;
  /**
   * The retry goes out from the failed node `from` to `to`: the request runs there now, and the
   * scheduler's in-flight count moves with it (core's moves.ts), before the fallback's reply.
   */
  readonly retried?: (from: string, to: string) => void;
}

/** A relay's refusal that means the node failed before answering (not a timeout, not a cut). */
function failedBeforeReply(error: unknown): boolean {
  return error instanceof GatewayError && error.status === 502;
}

/** Relays to the chosen node and, when it fails before the first byte, once to the fallback. */
export async function relayWithFailover(
  deps: FailedRetryDeps,
  request: FailedRetryRequest,
  relayTo: RelayTo,
): Promise<void> {
  const { model, node, outgoing } = request;
  const fallback = deps.fallbacks?.get(model);
  const to = retryOnFailure(fallback, node, outgoing.headersSent, request.mayUseUpstreams);
  try {
    await relayTo(node, request.fallback, to !== undefined);
    return;
  } catch (error) {
    if (
      to === undefined ||
      outgoing.headersSent ||
      outgoing.destroyed ||
      !failedBeforeReply(error)
    ) {
      throw error;
    }
  }
  // Counted only where the retry can go out: a refusal to resend is no fallback.
  if (relayTo.resendable?.() !== false) {
    deps.fellBack(model, 'failed');
    deps.retried?.(node, to);
  }
  await relayTo(to, 'failed', false);
}
