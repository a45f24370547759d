/**
 * The headers the gateway adds to a proxied reply, pure: which node answered (`x-svc-node`) and
 * a `Server-Timing` entry for the gateway's own time before forwarding and, when the request
 * waited, the wait (`queue`, docs/design.md D25) and, when that wait saw its node woken, the wake
 * (W3C Server Timing; browsers show it in their network panel).
 */
export interface ReplyTiming {
  /** Milliseconds the gateway spent before forwarding, the wake excluded. */
  readonly gatewayMs: number;
  /** Milliseconds the request waited for a woken or loading engine, when it did. */
  readonly wakeMs?: number;
  /**
   * Milliseconds it waited to be placed, for a slot or a wake (docs/design.md D25), when it did.
   */
  readonly queueMs?: number;
}

export function serverTiming(timing: ReplyTiming): string {
  const entries = [`gateway;dur=${timing.gatewayMs.toFixed(1)}`];
  if (timing.queueMs !== undefined) {
    entries.push(`queue;dur=${timing.queueMs.toFixed(0)}`);
  }
  if (timing.wakeMs !== undefined) {
    entries.push(`wake;dur=${timing.wakeMs.toFixed(0)}`);
  }
  return entries.join(', ');
}

/** As the flat `[name, value, …]` list the proxy appends to the engine's raw headers. */
export function proxiedReplyHeaders(node: string, timing: ReplyTiming): string[] {
  return ['x-svc-node', node, 'server-timing', serverTiming(timing)];
}
