/**
 * The second half of a wake (spec §4.2 rule 5, docs/design.md D13): ask the node until its engine
 * serves the model and answers, within the wake deadline. A crash, a stop or another model ends the
 * wait at once; the deadline ends it with a 504 that leaves the engine loading (docs/design.md
 * D19).
 */
import { formatDurationText } from '../../core/duration.ts';
import type { NodeDriver } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { type EngineTarget, engineTarget, serves } from '../../core/fleet/routing/engine-target.ts';
import { WAKE_TIMEOUT_RETRY_S } from '../../core/fleet/scheduling/requests/deadlines.ts';
import { TRUST_READINESS_MS } from '../../core/fleet/scheduling/view-of-snapshot.ts';
import { snapshotOf } from '../../core/fleet/state/node-snapshot.ts';
import type { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import type { WakeEdges } from './wake-edges.ts';

// A waking node is asked often: the wake gap (engine ready → first byte, docs/benchmarks.md) is
// bounded by this plus the daemon's own readiness poll.
export const POLL_MS = 100;

/** What the wait reads and asks. */
export interface ReadyWait {
  readonly view: Pick<FleetView, 'fleet' | 'states'>;
  readonly client: Pick<NodeDriver, 'status'>;
  readonly edges: WakeEdges;
  readonly timeoutMs: number;
}

/** docs/design.md D19: a wake timeout is a 504; the engine keeps loading, so a retry can help. */
export function wakeTimedOut(node: Pick<FleetNode, 'name'>, timeoutMs: number): GatewayError {
  return new GatewayError(
    504,
    `node "${node.name}" did not answer within ${formatDurationText(timeoutMs)}: its engine may still be loading, so it has been left running; check \`svc fleet status\``,
    { code: 'wake_timeout', retryAfterSeconds: WAKE_TIMEOUT_RETRY_S },
  );
}

export async function waitReady(
  wait: ReadyWait,
  node: FleetNode,
  model: string,
  deadline: number,
): Promise<EngineTarget> {
  const { view, client, edges } = wait;
  const trustReadinessUntil = edges.now() + TRUST_READINESS_MS;
  for (;;) {
    // Asked directly, never joined with a background call that may predate the start.
    const askedAt = view.states.now();
    const reply = await client.status(node);
    view.states.record(snapshotOf(node, reply), askedAt);
    if (reply.ok) {
      const snapshot = { node, ok: true as const, status: reply.value };
      const { state, ready } = reply.value;
      if (state === 'crashed') {
        throw new GatewayError(
          502,
          `node "${node.name}" crashed while starting ${model}: check its engine log${reply.value.logPath === undefined ? '' : ` (${reply.value.logPath})`}`,
          { code: 'wake_failed' },
        );
      }
      if (state === 'stopped' || state === 'idle') {
        throw new GatewayError(
          502,
          `node "${node.name}" was stopped while it was starting ${model}`,
          { code: 'wake_failed' },
        );
      }
      if (!serves(snapshot, model)) {
        throw new GatewayError(
          409,
          `node "${node.name}" is running ${reply.value.servedName ?? reply.value.model ?? 'another model'}`,
        );
      }
      // An engine it can never use fails now, not after the wake timeout (spec §4.2 rule 3).
      const target = engineTarget(snapshot, view.fleet.path);
      if ('unusable' in target) {
        throw new GatewayError(target.status, target.unusable, { code: target.code });
      }
      // No readiness reported (a daemon that predates the check): an open engine port will do.
      const predatesCheck = ready === undefined && edges.now() > trustReadinessUntil;
      if (ready === 'ready' || (predatesCheck && (await edges.accepts(target.origin)))) {
        return target;
      }
    }
    if (edges.now() >= deadline) {
      throw wakeTimedOut(node, wait.timeoutMs);
    }
    await edges.sleep(POLL_MS);
  }
}
