/**
 * The relays the gateway may end itself (docs/design.md D33): a node the operator stops with
 * force, or the gateway shutting down past its grace. Each ended stream says why in one SSE error
 * event, worded as a waiting request is told the same thing (upstream-reply.ts `cut`).
 */
import { GatewayError } from '../../core/http/gateway-error.ts';

/** A relay that can be ended from outside; settles once what it wrote is out (or it closed). */
export interface CuttableRelay {
  cut(reason: GatewayError): Promise<void>;
}

/** Why a request the gateway held or relayed ended: the gateway is shutting down. */
export function shuttingDown(): GatewayError {
  return new GatewayError(
    503,
    'the gateway is shutting down; retry once it is back, or through another',
    { code: 'shutting_down', retryAfterSeconds: 1 },
  );
}

/** Why a relayed request ended: the operator stopped its node with force (docs/design.md D28). */
export function nodeStopped(node: string): GatewayError {
  return new GatewayError(
    503,
    `node "${node}" was stopped by the operator while it answered; retry to be served once it or another node serves the model`,
    { code: 'node_stopped' },
  );
}

/** The relays under way, by node. */
export class RelayCuts {
  private readonly relays = new Map<CuttableRelay, string>();

  /** Tracks a relay to `node` until the returned function is called. */
  track(node: string, relay: CuttableRelay): () => void {
    this.relays.set(relay, node);
    return () => {
      this.relays.delete(relay);
    };
  }

  /** Ends the relays to `node` (every relay when absent); settles once their last bytes are out. */
  async cut(reason: GatewayError, node?: string): Promise<void> {
    const cuts: Promise<void>[] = [];
    for (const [relay, on] of [...this.relays]) {
      if (node === undefined || on === node) {
        this.relays.delete(relay);
        cuts.push(relay.cut(reason));
      }
    }
    await Promise.all(cuts);
  }
}
