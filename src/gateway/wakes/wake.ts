/**
 * Waking (spec §4.2 rule 5): start the stopped node the scheduler chose, whose own Svcfile
 * describes the model, and wait until its engine answers, within the wake timeout. Concurrent
 * wakes share one start per node; a timeout leaves the engine running.
 * The clock, the pause between asks and the engine-port probe are injected (wake-edges.ts).
 */
import type { NodeDriver, NodeSource } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { EngineTarget } from '../../core/fleet/routing/engine-target.ts';
import type { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import type { Logger } from '../../core/logger.ts';
import type { WakeObserver } from '../metrics/gateway-metrics.ts';
import { waitReady, wakeTimedOut } from './wait-ready.ts';
import { WAKE_EDGES, type WakeEdges } from './wake-edges.ts';

/**
 * A start the node's daemon did not answer (refused, reset, silence): on a node with a wake
 * command, a machine asleep (docs/design.md D33), which the command wakes.
 */
export class StartUnanswered extends GatewayError {
  constructor(detail: string) {
    super(409, `start refused: ${detail}`);
  }
}

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
        // A blocking boot (a remote environment) ran out of the wake timeout (docs/design.md D19:
        // 504).
        throw wakeTimedOut(node, this.timeoutMs);
      }
      if (started.outcome === 'unreachable') {
        throw new StartUnanswered(started.detail);
      }
      throw new GatewayError(409, `start refused: ${started.detail}`);
    }
    const restored = started.value.lastCacheRestore;
    if (restored !== undefined && restored.slots > 0) {
      // docs/design.md D32: the tokens a keepCache node brought back, its next turn's prefill
      // saved. A restore of nothing (a first start, a file skipped) is not worded as one.
      this.logger.info('node woke with its prompt cache', { node: node.name, ...restored });
    }
    return this.waitReady(node, model, deadline);
  }
}
