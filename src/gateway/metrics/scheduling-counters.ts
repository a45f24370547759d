/**
 * What the scheduler's loop did (docs/design.md D25, D26), counted as it happens: how long
 * dispatched requests waited in the queue, refusals by reason, scale-out wakes, idle stops, group
 * swaps and the runs of nodes' wake commands. Each label's values come from the fleet file (nodes,
 * groups), the models the fleet serves, or a fixed set (reasons, outcomes), so no caller can add a
 * series. Each is a kept series (core/metrics/series.ts): a refusal or a wake is one number added.
 */
import type { Registry, RegistryContentType } from 'prom-client';

import type { FallbackReason } from '../../core/fleet/file/fleet-file.ts';
import type { RejectReason } from '../../core/fleet/scheduling/types.ts';
import { CounterSeries, type HistogramCell, HistogramSeries } from '../../core/metrics/series.ts';

/** How a node's `wakeCommand` run ended: exit 0, another exit or a signal, or past the bound. */
export type WakeCommandOutcome = 'ok' | 'failed' | 'timeout';

/**
 * Every refusal reason, each counted from 0 so rate() sees the first one; `wake_not_allowed`
 * only once it happens, so a fleet without callers (docs/design.md D29) shows what it did before.
 */
const REJECT_REASONS: Record<Exclude<RejectReason, 'wake_not_allowed'>, true> = {
  queue_full: true,
  queue_timeout: true,
  group_busy: true,
  wake_timeout: true,
  wake_failed: true,
  no_node: true,
};

/**
 * Queue wait buckets: a slot freeing within a few ms up to a wait that outlasts a long reply or
 * a cold wake (10 min).
 */
export const QUEUE_WAIT_BUCKETS = [
  0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
];

export class SchedulingCounters {
  /** The one cell of the unlabelled queue-wait histogram. */
  private readonly queueWait: HistogramCell;
  private readonly rejections: CounterSeries;
  private readonly scaleOutWakes: CounterSeries;
  private readonly idleStops: CounterSeries;
  private readonly swaps: CounterSeries;
  private readonly wakeCommands: CounterSeries;
  private readonly fallbacks: CounterSeries;

  constructor(registers: readonly Registry<RegistryContentType>[]) {
    this.queueWait = new HistogramSeries({
      name: 'svc_gateway_queue_wait_seconds',
      help: 'Time a request waited in the queue before it was sent to a node or refused.',
      buckets: QUEUE_WAIT_BUCKETS,
      registers,
    }).cell();
    this.rejections = new CounterSeries({
      name: 'svc_gateway_rejected_total',
      help: 'Requests the scheduler refused, by reason (queue_full, queue_timeout, group_busy, wake_timeout, wake_failed, no_node).',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of Object.keys(REJECT_REASONS)) {
      this.rejections.cell(reason);
    }
    this.scaleOutWakes = new CounterSeries({
      name: 'svc_gateway_scale_out_wakes_total',
      help: 'Nodes woken to serve a model some node already served, because its requests queued.',
      labelNames: ['model'],
      registers,
    });
    this.idleStops = new CounterSeries({
      name: 'svc_gateway_idle_stops_total',
      help: 'Nodes stopped for being idle past their idleStop.',
      labelNames: ['node'],
      registers,
    });
    this.swaps = new CounterSeries({
      name: 'svc_gateway_swaps_total',
      help: 'Members of a group stopped to make room for another member, by group.',
      labelNames: ['group'],
      registers,
    });
    this.wakeCommands = new CounterSeries({
      name: 'svc_gateway_wake_commands_total',
      help: "Runs of a node's wakeCommand, by node and outcome (ok, failed, timeout).",
      labelNames: ['node', 'outcome'],
      registers,
    });
    // docs/design.md D30: the model label is a key of the fleet file's `fallbacks`, the reason
    // one of three, so the series are bounded by the fleet file.
    this.fallbacks = new CounterSeries({
      name: 'svc_gateway_fallbacks_total',
      help: "Requests sent to their model's fallback, by model and reason (waking, queueFull, failed).",
      labelNames: ['model', 'reason'],
      registers,
    });
  }

  /** A request left the queue (sent to a node, or refused) after `seconds` there. */
  queueWaited(seconds: number): void {
    this.queueWait.observe(seconds);
  }

  /** The scheduler refused a request (a `reject` action). */
  rejected(reason: RejectReason): void {
    this.rejections.cell(reason).inc();
  }

  /** A `wake` action with cause `scale-out`, for `model`. */
  scaleOutWake(model: string): void {
    this.scaleOutWakes.cell(model).inc();
  }

  /** A `stop` action with reason `idle`. */
  idleStopped(node: string): void {
    this.idleStops.cell(node).inc();
  }

  /** A `stop` action with reason `swap`, in `group`. */
  swapped(group: string): void {
    this.swaps.cell(group).inc();
  }

  /** A request went to its model's fallback (a dispatch naming one, or a retry after a failure). */
  fellBack(model: string, reason: FallbackReason): void {
    this.fallbacks.cell(model, reason).inc();
  }

  /** A node's wakeCommand ended. */
  wakeCommandRan(node: string, outcome: WakeCommandOutcome): void {
    this.wakeCommands.cell(node, outcome).inc();
  }
}
