/**
 * The reply to a request the scheduler refused because nothing serves its model and nothing may be
 * woken for it (`no_node`), worded from the scheduler's own decision (docs/design.md D33:
 * route-decision.ts says each node's part): a running engine this gateway cannot reach → 502
 * `loopback_only` naming it (docs/design.md D15, D19); a node that did not answer, when no
 * answering node describes the model → 502 naming it; else 404 `model_not_found` (clients do not
 * retry a 404) with what is available and, where a node's wake is off, the node and `svc fleet
 * start` (docs/design.md D19).
 */
import type { Fleet } from '../../core/fleet/file/fleet-file.ts';
import type { RouteDecision } from '../../core/fleet/scheduling/route-decision.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { didYouMean } from '../models/closest-model.ts';
import type { Available } from '../models/snapshot-replies.ts';

export interface NoNodeContext {
  readonly fleet: Pick<Fleet, 'path' | 'nodes'>;
  /** The models a caller may use instead (snapshot-replies.ts availableNow). */
  readonly available: Available;
}

export function noNodeError(decision: RouteDecision, context: NoNodeContext): GatewayError {
  const { model, nodes } = decision;
  const { fleet } = context;
  const unusable = nodes.filter((node) => node.verdict === 'unusable');
  if (unusable.length > 0) {
    return new GatewayError(502, unusable.map((node) => node.reason).join('\n'), {
      code: 'loopback_only',
    });
  }
  const describedBy = nodes.find((node) => node.verdict === 'wake-off');
  const silent = nodes.filter(
    (node) => node.verdict === 'unreachable' || node.verdict === 'unknown',
  );
  if (describedBy === undefined && silent.length > 0) {
    const rows = nodes.map(
      (node) =>
        `  ${node.name.padEnd(16)} ${node.state}${node.verdict === 'unreachable' ? ` (${node.reason})` : ''}`,
    );
    return new GatewayError(
      502,
      `${[`no node in ${fleet.path} is serving ${model}:`, ...rows].join('\n')}\n${silent.map((node) => `"${node.name}"`).join(', ')} did not answer, so whether it serves ${model} is unknown`,
      { code: 'upstream_error' },
    );
  }
  let why: string;
  if (fleet.nodes.every((node) => node.wake === 'off')) {
    why =
      describedBy === undefined
        ? `wake is off in ${fleet.path}, and no node's source describes ${model}`
        : `wake is off in ${fleet.path}: "${describedBy.name}"'s source describes ${model}; start it with \`svc fleet start ${describedBy.name}\``;
  } else {
    // The nodes not running that answered: why none of them may be woken for the model.
    const reasons = nodes
      .filter(
        (node) =>
          node.state !== 'running' &&
          node.state !== 'unreachable' &&
          node.state !== 'unknown' &&
          (node.verdict === 'wake-off' || node.verdict === 'other'),
      )
      .map((node) =>
        node.verdict === 'wake-off'
          ? `  ${node.name}: waking is off for this node; start it with \`svc fleet start ${node.name}\``
          : `  ${node.name}: ${node.reason}`,
      );
    why =
      reasons.length === 0
        ? `no node in ${fleet.path} serves or describes ${model}`
        : `no node in ${fleet.path} may be woken for ${model}:\n${reasons.join('\n')}`;
  }
  // docs/design.md D20: the closest served name first, so a typo is fixed in one try.
  const near = didYouMean(model, context.available.served);
  return new GatewayError(
    404,
    `${near}the model "${model}" is not available: ${why}\n${context.available.text}`,
    { code: 'model_not_found' },
  );
}
