/**
 * The scheduler as the gateway runs it (docs/design.md D25, D26): the pure scheduler behind one
 * loop (schedule-loop.ts), fed the views of every stored node snapshot (scheduler-views.ts), its
 * wakes run by the waker and its stops by the node driver, both logged. Requests are admitted here
 * and told where to go; what they wait for is told back to a streamed caller as it waits.
 * Nodes under idle stop or keep-warm are watched while no request comes (node-watch.ts).
 */
import type { NodeDriver, NodeReply, NodeStatus } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { EngineTarget } from '../../core/fleet/routing/engine-target.ts';
import type { RouteDecision } from '../../core/fleet/scheduling/route-decision.ts';
import type { Scheduler } from '../../core/fleet/scheduling/scheduler.ts';
import { queueLimitsFor } from '../../core/fleet/scheduling/settings.ts';
import type { Action, NodeView, RequestInfo } from '../../core/fleet/scheduling/types.ts';
import type { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import type { Logger } from '../../core/logger.ts';
import type { Available } from '../models/snapshot-replies.ts';
import { nodeStopped, RelayCuts, shuttingDown } from '../relay/relay-cuts.ts';
import { MachineSleep } from '../wakes/machine-sleep.ts';
import type { MachineWaker } from '../wakes/machine-wake.ts';
import type { NodeCommands } from '../wakes/node-commands.ts';
import type { Waker } from '../wakes/wake.ts';
import { readActivity } from './activity-read.ts';
import { type AdmissionDeps, admitRequest } from './admission.ts';
import { EngineTargets } from './engine-targets.ts';
import { type Admission, type RejectAction } from './loop-contract.ts';
import { type LoopTimers } from './loop-contract.ts';
import { noNodeError } from './no-node.ts';
import { watchNodes } from './node-watch.ts';
import { operatorStart } from './operator-start.ts';
import { rejectionError } from './rejection.ts';
import { ScheduleLoop } from './schedule-loop.ts';
import { SchedulerViews } from './scheduler-views.ts';

export interface GatewaySchedulerDeps {
  readonly scheduler: Scheduler;
  readonly view: FleetView;
  readonly waker: Pick<Waker, 'wakeNode'>;
  /** What a caller may use instead, as a refusal lists it (docs/design.md D19). */
  readonly available: () => Promise<Available>;
  /** Wakes a machine asleep (docs/design.md D26 `wakeCommand`); sleeps one after an idle stop. */
  readonly machines: Pick<MachineWaker, 'wake'>;
  readonly commands: Pick<NodeCommands, 'run'>;
  readonly driver: Pick<NodeDriver, 'stop' | 'stats'>;
  readonly logger: Logger;
  readonly timers: LoopTimers;
  readonly wakeTimeoutMs: number;
  /** Hears every action applied (metrics). */
  readonly applied?: (action: Action) => void;
}

export class GatewayScheduler {
  readonly loop: ScheduleLoop;
  /** The replies being relayed, which a forced stop or the shutdown ends (relay-cuts.ts). */
  readonly relays = new RelayCuts();
  private readonly views: SchedulerViews;
  private readonly nodes: ReadonlyMap<string, FleetNode>;
  /** The node being woken for each model, while it is (progress names it). */
  private readonly waking = new Map<string, string>();
  /** When each node's last wake of ours ended. */
  private readonly wakeEnded = new Map<string, number>();
  private readonly targets: EngineTargets;
  /** The machines under the nodes, asleep or awake (docs/design.md D33). */
  private readonly sleep: MachineSleep;
  private stopWatch: () => void = () => undefined;
  private readonly admission: AdmissionDeps;

  constructor(private readonly deps: GatewaySchedulerDeps) {
    const { view } = deps;
    this.nodes = new Map(view.fleet.nodes.map((node) => [node.name, node]));
    this.targets = new EngineTargets(view, this.nodes);
    this.loop = new ScheduleLoop(
      deps.scheduler,
      {
        wake: (action) => this.wake(action.node, action.model, action.cause),
        stop: (action) => this.stop(action.node, action.reason, action.group, action.forced),
        read: (action) => {
          const node = this.nodes.get(action.node);
          return node === undefined
            ? Promise.resolve(undefined)
            : readActivity(deps.driver, node, deps.timers.now());
        },
        refresh: (name) => {
          const node = this.nodes.get(name);
          if (node !== undefined) {
            void view.states.refresh(node);
          }
        },
        ...(deps.applied === undefined ? {} : { applied: deps.applied }),
      },
      deps.timers,
    );
    this.views = new SchedulerViews(view, (views) => this.loop.views(views));
    const views = this.views;
    this.admission = {
      states: view.states,
      loop: this.loop,
      views,
      freshen: {
        states: view.states,
        scheduler: deps.scheduler,
        settled: () => views.settled(),
        now: () => deps.timers.now(),
      },
    };
    this.sleep = new MachineSleep({
      ...deps,
      states: view.states,
      now: () => deps.timers.now(),
    });
    view.states.onSnapshot((snapshot, askedAt) => {
      this.sleep.answered(snapshot, askedAt);
      this.views.stored(snapshot, askedAt);
    });
  }

  /**
   * Watches the nodes under idle stop or keep-warm (node-watch.ts): called once the gateway has
   * bound its address, so no keep-warm start goes out from a gateway that cannot listen.
   */
  watch(): void {
    const { deps } = this;
    const refresh = (node: FleetNode): void => void deps.view.states.refresh(node, false);
    this.stopWatch = watchNodes(deps.scheduler.settings.nodes, this.nodes, refresh, deps.timers);
  }

  get scheduler(): Scheduler {
    return this.deps.scheduler;
  }

  /** Admits a request (admission.ts). */
  admit(request: Omit<RequestInfo, 'id'>): Admission | Promise<Admission> {
    return admitRequest(this.admission, request);
  }

  /** docs/design.md D33 `GET /v1/fleet/route`: what a request for `model` gets now; read-only. */
  async route(model: string): Promise<RouteDecision> {
    await this.views.settled();
    return this.scheduler.route(model, this.deps.timers.now());
  }

  /** Where a dispatched request goes (engine-targets.ts). */
  target(name: string): EngineTarget {
    return this.targets.of(name);
  }

  /** An operator's start (docs/design.md D33), through the scheduler: operator-start.ts. */
  startNode(
    name: string,
    force: boolean,
    run: () => Promise<NodeReply<NodeStatus>>,
  ): Promise<NodeReply<NodeStatus>> {
    const { loop, views, nodes } = this;
    const { view, timers } = this.deps;
    const groups = this.scheduler.settings.groups;
    return operatorStart(
      { loop, views, nodes, view, groups, now: () => timers.now() },
      name,
      force,
      run,
    );
  }

  /** The reply a refused request gets (rejection.ts), worded from the scheduler's decision. */
  refusal(action: RejectAction): Promise<GatewayError> {
    const fleet = this.deps.view.fleet;
    return rejectionError(action, {
      fleetPath: fleet.path,
      limits: queueLimitsFor(this.scheduler.settings, action.model),
      wakeTimeoutMs: this.deps.wakeTimeoutMs,
      unavailable: async () =>
        noNodeError(this.scheduler.route(action.model, this.deps.timers.now()), {
          fleet,
          available: await this.deps.available(),
        }),
    });
  }

  /** What a waiting stream is told (docs/design.md D25 queue position; a wake names its node). */
  progress(id: number, model: string, waitedMs: number): string {
    const seconds = Math.round(waitedMs / 1000);
    const node = this.waking.get(model);
    if (node !== undefined) {
      return `: waking ${node} (${seconds} s)\n\n`;
    }
    const place = this.scheduler.waiting(id, this.deps.timers.now());
    const position = place === undefined ? '' : `: position ${place.position}`;
    return `: queued for ${model}${position} (${seconds} s)\n\n`;
  }

  /** The scheduler's clock. */
  now(): number {
    return this.deps.timers.now();
  }

  /**
   * Whether the node was being woken at some time since `since` (the reply names the wake's
   * time): a wake still under way counts, since a request may be sent on as soon as the node's
   * own status says it is ready, before the wake itself has ended.
   */
  wokeSince(node: string, since: number): boolean {
    for (const waking of this.waking.values()) {
      if (waking === node) {
        return true;
      }
    }
    return (this.wakeEnded.get(node) ?? Number.NEGATIVE_INFINITY) >= since;
  }

  /** The node being woken for `model`, while one is. */
  wakingFor(model: string): string | undefined {
    return this.waking.get(model);
  }

  /** Stops watching and ends every request still waiting: the gateway is shutting down. */
  close(): void {
    this.stopWatch();
    this.loop.close(shuttingDown());
  }

  private async wake(name: string, model: string, cause: string): Promise<NodeView> {
    const node = this.nodes.get(name);
    if (node === undefined) {
      throw new Error(`no node named "${name}"`);
    }
    if (cause !== 'demand') {
      this.deps.logger.info(cause === 'keep-warm' ? 'keeping node warm' : 'scaling out', {
        node: name,
        model,
      });
    }
    this.waking.set(model, name);
    try {
      await this.sleep.wakeEngine(node, model);
    } catch (error) {
      // A wake that ran out of time leaves the engine loading (docs/design.md D19): not a failure
      // to try the next node for; those waiting keep waiting for it until their own deadline.
      if (!(error instanceof GatewayError && error.code === 'wake_timeout')) {
        // Said at once, whoever asked: a keep-warm start has no request to carry its failure.
        this.deps.logger.error('node start failed', {
          node: name,
          model,
          cause,
          reason: (error as Error).message,
        });
        throw error;
      }
    } finally {
      this.wakeEnded.set(name, this.deps.timers.now());
      if (this.waking.get(model) === name) {
        this.waking.delete(model);
      }
    }
    const snapshot = this.deps.view.states.last(node);
    if (snapshot === undefined) {
      throw new Error(`node "${name}" has no status since its wake`);
    }
    return this.views.viewAt(snapshot, this.deps.timers.now());
  }

  private async stop(
    name: string,
    reason: 'idle' | 'swap',
    group?: string,
    forced?: true,
  ): Promise<boolean> {
    const node = this.nodes.get(name);
    if (node === undefined) {
      return false;
    }
    this.deps.logger.info(reason === 'idle' ? 'stopping idle node' : 'stopping node for a swap', {
      node: name,
      ...(group === undefined ? {} : { group }),
      // docs/design.md D33: an operator's forced start stops a busy member; its requests are cut.
      ...(forced === undefined ? {} : { forced: 'true' }),
    });
    if (forced !== undefined) {
      void this.relays.cut(nodeStopped(name), name);
    }
    const reply = await this.deps.driver.stop(node);
    if (!reply.ok) {
      this.deps.logger.warn('stop failed', { node: name, detail: reply.detail });
    } else if (reason === 'idle') {
      this.sleep.sleep(node);
    }
    return reply.ok;
  }
}
