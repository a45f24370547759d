/**
 * The requests each node's engine answered through this gateway since it started (counted as each
 * one ends, gateway-metrics.ts), and the stats reply that shows them where the engine counts none.
 * llama-server exports no request counter, but every request to a local node passes through its
 * gateway (docs/design.md D27), so for a running local node whose engine reports no
 * `tokens.requests` the gateway's own count stands in, under the same field (spec §2.4). A daemon
 * or remote node may be called past the gateway: its count here would be short, so its stats stay
 * the engine's own.
 */
import type { NodeStats } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';

export class RequestCounts {
  private readonly byNode = new Map<string, number>();

  /** One request `node`'s engine answered. */
  add(node: string): void {
    this.byNode.set(node, (this.byNode.get(node) ?? 0) + 1);
  }

  /** Requests `node`'s engine answered through this gateway since it started. */
  of(node: string): number {
    return this.byNode.get(node) ?? 0;
  }
}

/** `stats` with the gateway's count as `tokens.requests` where it stands in (see above). */
export function withGatewayRequests(
  node: Pick<FleetNode, 'kind' | 'name'>,
  stats: NodeStats,
  counts: Pick<RequestCounts, 'of'>,
): NodeStats {
  if (node.kind !== 'local' || stats.state !== 'running' || stats.tokens?.requests !== undefined) {
    return stats;
  }
  return { ...stats, tokens: { ...stats.tokens, requests: counts.of(node.name) } };
}
