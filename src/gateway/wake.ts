/**
 * Waking (spec §4.2 rule 5): when nothing serves the requested model, start a stopped node whose
 * own Svcfile describes it and hold the request until its engine answers, within the wake
 * timeout. Concurrent requests share one start per node; a timeout leaves the engine running.
 */
import { connect } from 'node:net';

import type { Logger } from '../core/logger.ts';
import type { FleetNode } from './fleet-file.ts';
import { GatewayError } from './gateway-error.ts';
import { modelNameOf, type NodeSource, reportedModelOf } from './load-fleet.ts';
import type { NodeClient } from './node-client.ts';
import { snapshotOf } from './node-snapshot.ts';
import type { FleetView, NodeSnapshot } from './node-snapshots.ts';
import { describeFleet, type EngineTarget, engineTarget, serves } from './route.ts';

// A waking node is asked often: the wake gap (engine ready → first byte, docs/benchmarks.md) is
// bounded by this plus the daemon's own readiness poll.
const POLL_MS = 100;

/** Whether something accepts TCP connections at `origin` within a second. */
function accepts(origin: string): Promise<boolean> {
  const url = new URL(origin);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port,
      timeout: 1_000,
    });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Whether the started engine would answer to `model`: its served name or the id it reports. */
function describes(config: NodeSource['config'], model: string): boolean {
  return config.servedModelName === model || reportedModelOf(config) === model;
}

export function formatDurationText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 1000)}s`;
}

export class Waker {
  private readonly inflight = new Map<string, Promise<EngineTarget>>();

  constructor(
    private readonly view: FleetView,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
    private readonly client: NodeClient,
  ) {}

  /** Waits for a node that is already loading the model (GUIDE D13). */
  waitFor(node: FleetNode, model: string): Promise<EngineTarget> {
    return this.coalesce(node, () => this.waitReady(node, model, Date.now() + this.timeoutMs));
  }

  async wake(model: string, snapshots: readonly NodeSnapshot[]): Promise<EngineTarget> {
    const fleet = this.view.fleet;
    const reasons: string[] = [];
    const candidates: {
      snapshot: NodeSnapshot & { ok: true };
      source: NodeSource;
      warm: boolean;
    }[] = [];
    let describedBy: FleetNode | undefined;
    for (const snapshot of snapshots) {
      if (!snapshot.ok || snapshot.status.state === 'running') {
        continue;
      }
      let source: NodeSource;
      try {
        source = await this.view.source(snapshot.node);
      } catch (error) {
        reasons.push(`  ${snapshot.node.name}: ${(error as Error).message}`);
        continue;
      }
      if (!describes(source.config, model)) {
        reasons.push(
          `  ${snapshot.node.name}: its source describes ${modelNameOf(source.config)}, not ${model}`,
        );
        continue;
      }
      describedBy ??= snapshot.node;
      if (snapshot.node.wake === 'off') {
        reasons.push(
          `  ${snapshot.node.name}: waking is off for this node; start it with \`svc fleet start ${snapshot.node.name}\``,
        );
        continue;
      }
      const warm = snapshot.status.model === reportedModelOf(source.config);
      candidates.push({ snapshot, source, warm });
    }

    if (candidates.length === 0) {
      const fleetText = describeFleet(model, snapshots, fleet);
      if (fleet.nodes.every((node) => node.wake === 'off')) {
        throw new GatewayError(
          503,
          describedBy === undefined
            ? `${fleetText}\nwake is off in ${fleet.path}, and no node's source describes ${model}`
            : `${fleetText}\nwake is off in ${fleet.path}: "${describedBy.name}"'s source describes ${model}; start it with \`svc fleet start ${describedBy.name}\``,
        );
      }
      throw new GatewayError(
        503,
        reasons.length === 0
          ? fleetText
          : `no node in ${fleet.path} could serve ${model}:\n${reasons.join('\n')}`,
      );
    }

    // spec §4.2 rule 5: a node whose stored config already matches goes first; then file order.
    const ordered = [
      ...candidates.filter((entry) => entry.warm),
      ...candidates.filter((entry) => !entry.warm),
    ];
    for (const { snapshot, source } of ordered) {
      try {
        return await this.coalesce(snapshot.node, () =>
          this.startAndWait(snapshot.node, source, model),
        );
      } catch (error) {
        if (error instanceof GatewayError && error.status !== 409) {
          throw error;
        }
        reasons.push(`  ${snapshot.node.name}: ${(error as Error).message}`);
      }
    }
    throw new GatewayError(
      503,
      `no node in ${fleet.path} could serve ${model}:\n${reasons.join('\n')}`,
    );
  }

  private coalesce(node: FleetNode, run: () => Promise<EngineTarget>): Promise<EngineTarget> {
    let pending = this.inflight.get(node.name);
    if (pending === undefined) {
      pending = run().finally(() => this.inflight.delete(node.name));
      this.inflight.set(node.name, pending);
    }
    return pending;
  }

  private async startAndWait(
    node: FleetNode,
    source: NodeSource,
    model: string,
  ): Promise<EngineTarget> {
    const deadline = Date.now() + this.timeoutMs;
    this.logger.info('waking node', { node: node.name, model });
    const started = await this.client.start(node, source.config);
    if (!started.ok) {
      if (started.status === 409) {
        // Someone else started it: fine if it now serves the model.
        return this.waitReady(node, model, deadline);
      }
      throw new GatewayError(409, `start refused: ${started.detail}`);
    }
    return this.waitReady(node, model, deadline);
  }

  private async waitReady(node: FleetNode, model: string, deadline: number): Promise<EngineTarget> {
    // Our daemons report readiness within their first sampler tick; only a daemon that still has
    // not after a few seconds is one that predates the check.
    const trustReadinessUntil = Date.now() + 3_000;
    for (;;) {
      // Asked directly, never joined with a background call that may predate the start.
      const askedAt = this.view.states.now();
      const reply = await this.client.status(node);
      this.view.states.record(snapshotOf(node, reply), askedAt);
      if (reply.ok) {
        const snapshot = { node, ok: true as const, status: reply.value };
        const { state, ready } = reply.value;
        if (state === 'crashed') {
          throw new GatewayError(
            503,
            `node "${node.name}" crashed while starting ${model}: check its engine log${reply.value.logPath === undefined ? '' : ` (${reply.value.logPath})`}`,
          );
        }
        if (state === 'stopped' || state === 'idle') {
          throw new GatewayError(
            503,
            `node "${node.name}" was stopped while it was starting ${model}`,
          );
        }
        if (!serves(snapshot, model)) {
          throw new GatewayError(
            409,
            `node "${node.name}" is running ${reply.value.servedName ?? reply.value.model ?? 'another model'}`,
          );
        }
        // An engine it can never use fails now, not after the wake timeout (spec §4.2 rule 3).
        const target = engineTarget(snapshot, this.view.fleet.path);
        if ('unusable' in target) {
          throw new GatewayError(target.status, target.unusable);
        }
        // No readiness reported (a daemon that predates the check): an open engine port will do.
        const predatesCheck = ready === undefined && Date.now() > trustReadinessUntil;
        if (ready === 'ready' || (predatesCheck && (await accepts(target.origin)))) {
          return target;
        }
      }
      if (Date.now() >= deadline) {
        throw new GatewayError(
          503,
          `node "${node.name}" did not answer within ${formatDurationText(this.timeoutMs)}: its engine may still be loading, so it has been left running; check \`svc fleet status\``,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
