/**
 * `svc fleet route`'s table, pure: the decision (docs/design.md D33 `GET /v1/fleet/route`) in one
 * line, the engine a served request goes to, who a swap stops, then every node's part and why, and
 * where the answer came from.
 */
import type { RouteDecision } from '../core/fleet/scheduling/route-decision.ts';

export function routeText(
  decision: RouteDecision,
  extra: { readonly engine?: string; readonly source: string },
): string {
  const head =
    decision.action === 'refuse'
      ? `${decision.model}: refused (${decision.refusal ?? 'refused'}) — ${decision.reason}`
      : `${decision.model} → ${decision.node ?? 'queue'} (${decision.action}): ${decision.reason}`;
  const name = Math.max(0, ...decision.nodes.map((node) => node.name.length));
  const verdict = Math.max(0, ...decision.nodes.map((node) => node.verdict.length));
  return `${[
    head,
    ...(extra.engine === undefined ? [] : [`engine: ${extra.engine}`]),
    ...(decision.stops.length === 0 ? [] : [`stops: ${decision.stops.join(', ')}`]),
    ...(decision.queued === 0
      ? []
      : [`queued: ${decision.queued} already wait for ${decision.model}`]),
    ...decision.nodes.map((node) =>
      `  ${node.name.padEnd(name)}  ${node.verdict.padEnd(verdict)}  ${node.reason}`.trimEnd(),
    ),
    extra.source,
  ].join('\n')}\n`;
}
