/**
 * Waking (spec §4.2 rule 5): start the stopped node the scheduler chose, whose own Svcfile
 * describes the model, and wait until its engine answers, within the wake timeout. Concurrent
 * wakes share one start per node; a timeout leaves the engine running. And, when nothing may be
 * woken, the refusal that says why (GUIDE D19).
 * The clock, the pause between asks and the engine-port probe are injected (wake-edges.ts).
 */
import type { NodeDriver, NodeSource } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { describeFleet, type EngineTarget, route } from '../../core/fleet/routing/route.ts';
import { wakeVerdict } from '../../core/fleet/routing/wake-choice.ts';
import type { FleetView, NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import type { Logger } from '../../core/logger.ts';
import type { WakeObserver } from '../metrics/gateway-metrics.ts';
import { didYouMean, served } from '../models/closest-model.ts';
import { wakeableModels } from '../models/model-endpoints.ts';
import { availableText, modelEntries } from '../models/models-list.ts';
import { waitReady, wakeTimedOut } from './wait-ready.ts';
import { WAKE_EDGES, type WakeEdges } from './wake-edges.ts';

export class Waker {
  private readonly inflight = new Map<string, Promise<EngineTarget>>();

  constructor(
    private readonly view: Pick<FleetView, 'fleet' | 'states' | 'source' | 'wakeableModel'>,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
    private readonly client: Pick<NodeDriver, 'start' | 'status'>,
    private readonly observer: WakeObserver = { wakeEnded: () => undefined },
    private readonly edges: WakeEdges = WAKE_EDGES,
  ) {}

  private waitReady(node: FleetNode, model: string, deadline: number): Promise<EngineTarget> {
    const { view, client, edges, timeoutMs } = this;
    return waitReady({ view, client, edges, timeoutMs }, node, model, deadline);
  }

  /**
   * Starts `node` for `model` and waits until its engine serves it (the scheduler chose the node:
   * warm first, then file order, spec §4.2 rule 5). Concurrent wakes of one node share one start.
   */
  async wakeNode(node: FleetNode, model: string): Promise<EngineTarget> {
    const source = await this.view.source(node);
    return this.coalesce(node, () => this.startAndWait(node, source, model));
  }

  /**
   * Why nothing serves `model` and nothing may be woken for it (the scheduler's `no_node`): the
   * routing refusal where one applies (a loopback-only engine, GUIDE D15), else the reason each
   * node gave, as GUIDE D19 words it.
   */
  async refusal(model: string, snapshots: readonly NodeSnapshot[]): Promise<GatewayError> {
    const decision = route(model, snapshots, this.view.fleet);
    if (decision.kind === 'refuse') {
      return new GatewayError(decision.status, decision.message, { code: decision.code });
    }
    const reasons: string[] = [];
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
      const verdict = wakeVerdict(snapshot.node, snapshot.status.model, source.config, model);
      if (verdict.kind === 'other-model') {
        reasons.push(
          `  ${snapshot.node.name}: its source describes ${verdict.describes}, not ${model}`,
        );
        continue;
      }
      describedBy ??= snapshot.node;
      if (verdict.kind === 'wake-off') {
        reasons.push(
          `  ${snapshot.node.name}: waking is off for this node; start it with \`svc fleet start ${snapshot.node.name}\``,
        );
      }
    }
    return this.notWakeable(model, snapshots, reasons, describedBy);
  }

  /**
   * GUIDE D19: nothing may be woken for the model → 404 `model_not_found` (clients retry a 503,
   * never a 404), listing what is available and naming the node and `svc fleet start` when its
   * wake is off. A node that did not answer might describe the model: that is a 502 naming it.
   */
  private async notWakeable(
    model: string,
    snapshots: readonly NodeSnapshot[],
    reasons: readonly string[],
    describedBy: FleetNode | undefined,
  ): Promise<GatewayError> {
    const fleet = this.view.fleet;
    const silent = snapshots.filter((snapshot) => !snapshot.ok);
    if (describedBy === undefined && silent.length > 0) {
      return new GatewayError(
        502,
        `${describeFleet(model, snapshots, fleet)}\n${silent.map((snapshot) => `"${snapshot.node.name}"`).join(', ')} did not answer, so whether it serves ${model} is unknown`,
        { code: 'upstream_error' },
      );
    }
    const now = this.edges.now();
    const entries = modelEntries(
      snapshots,
      await wakeableModels(snapshots, (node) => this.view.wakeableModel(node)),
      { now, startedAt: now },
    );
    const available = availableText(entries);
    let why: string;
    if (fleet.nodes.every((node) => node.wake === 'off')) {
      why =
        describedBy === undefined
          ? `wake is off in ${fleet.path}, and no node's source describes ${model}`
          : `wake is off in ${fleet.path}: "${describedBy.name}"'s source describes ${model}; start it with \`svc fleet start ${describedBy.name}\``;
    } else {
      why =
        reasons.length === 0
          ? `no node in ${fleet.path} serves or describes ${model}`
          : `no node in ${fleet.path} may be woken for ${model}:\n${reasons.join('\n')}`;
    }
    // docs/design.md D20: the closest served name first, so a typo is fixed in one try.
    const near = didYouMean(model, served(entries));
    return new GatewayError(
      404,
      `${near}the model "${model}" is not available: ${why}\n${available}`,
      {
        code: 'model_not_found',
      },
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
    const began = this.edges.now();
    try {
      const target = await this.startAndWaitOnce(node, source, model);
      this.observer.wakeEnded(node.name, 'ready', (this.edges.now() - began) / 1000);
      return target;
    } catch (error) {
      const outcome = error instanceof GatewayError && error.status === 504 ? 'timeout' : 'failed';
      this.observer.wakeEnded(node.name, outcome, (this.edges.now() - began) / 1000);
      throw error;
    }
  }

  private async startAndWaitOnce(
    node: FleetNode,
    source: NodeSource,
    model: string,
  ): Promise<EngineTarget> {
    const deadline = this.edges.now() + this.timeoutMs;
    this.logger.info('waking node', { node: node.name, model });
    const started = await this.client.start(node, source, { deadline });
    if (!started.ok) {
      if (started.status === 409) {
        // Someone else started it: fine if it now serves the model.
        return this.waitReady(node, model, deadline);
      }
      if (this.edges.now() >= deadline) {
        // A blocking boot (a remote environment) ran out of the wake timeout (GUIDE D19: 504).
        throw wakeTimedOut(node, this.timeoutMs);
      }
      throw new GatewayError(409, `start refused: ${started.detail}`);
    }
    return this.waitReady(node, model, deadline);
  }
}
