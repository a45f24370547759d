/**
 * The gateway's own Prometheus series (`GET /metrics`): what its requests, wakes and upstream calls
 * did, recorded on the request path with one call at each request's end; what the scheduler's
 * loop did (scheduling-counters.ts); and each node's state, readiness, slots and in-flight count
 * and the queue's depth read only when scraped (scrape-gauges.ts). The hot path stays cheap: label
 * cells (core/metrics/series.ts: plain numbers, formatted only when scraped) are looked up in
 * nested maps, no label string built per request; histograms have fixed buckets, and nothing here
 * touches a node.
 */
import { Gauge, Registry, type RegistryContentType } from 'prom-client';

import type { NodeSnapshot } from '../../core/fleet/state/node-snapshot.ts';
import {
  type CounterCell,
  CounterSeries,
  type HistogramCell,
  HistogramSeries,
} from '../../core/metrics/series.ts';
import { RequestCounts } from './request-counts.ts';
import { SchedulingCounters } from './scheduling-counters.ts';
import type { SchedulingReadout } from './scheduling-readout.ts';
import { registerScrapeGauges } from './scrape-gauges.ts';

/** The route label (http/routes.ts): a fixed set, so a caller's path can never add a series. */
export type MetricsRoute =
  | '/v1/chat/completions'
  | '/v1/completions'
  | '/v1/responses'
  | '/v1/embeddings'
  | '/v1/rerank'
  | '/v1/messages'
  | '/v1/messages/count_tokens'
  | '/v1/models'
  | '/v1/models/{id}'
  | '/v1/fleet'
  | '/v1/fleet/stats'
  | '/v1/fleet/rights'
  | '/v1/fleet/route'
  | '/v1/fleet/nodes/{name}/start'
  | '/v1/fleet/nodes/{name}/stop'
  | '/v1/fleet/nodes/{name}/logs'
  | '/health'
  | '/metrics'
  | 'page'
  | 'other';

/**
 * What a request learnt on its way (complete.ts's RequestContext satisfies it): the same object
 * the access log reads, so recording allocates nothing of its own.
 */
export interface RequestFacts {
  /** Set once the request was routed or woken for it: a caller's typo never becomes a series. */
  readonly model?: string;
  readonly node?: string;
  /** performance.now() when the engine's reply headers arrived. */
  readonly repliedAt?: number;
  /** The engine failed to answer, timed out or broke off mid-reply: counted against the node. */
  readonly upstreamError?: boolean;
}

export type WakeOutcome = 'ready' | 'failed' | 'timeout';

/** What the waker reports (wake.ts): one call per start it made. */
export interface WakeObserver {
  wakeEnded(node: string, outcome: WakeOutcome, seconds: number): void;
}

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
/** Request and first-byte buckets: a cached reply (~1 ms) up to a long completion (5 min). */
const REQUEST_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Wake buckets: a tiny model (~1 s) up to the default wake timeout (5 min) and beyond. */
const WAKE_BUCKETS = [0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];

/** `map.get(key)`, creating the entry once (only the first request with a new label pays). */
function child<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/**
 * The scheduler's loop calls the methods SchedulingCounters adds (queueWaited, rejected,
 * scaleOutWake, idleStopped, swapped, wakeCommandRan) on this same object.
 */
export class GatewayMetrics extends SchedulingCounters implements WakeObserver {
  /** Text format (Prometheus scrapes ask for OpenMetrics; curl gets the classic text). */
  readonly text: Registry<RegistryContentType>;
  readonly openMetrics: Registry<RegistryContentType>;

  private readonly requests: CounterSeries;
  /** Requests each node's engine answered through this gateway (request-counts.ts). */
  readonly served = new RequestCounts();
  private readonly duration: HistogramSeries;
  private readonly firstByte: HistogramSeries;
  private readonly aborts: CounterSeries;
  private readonly upstreamErrors: CounterSeries;
  private readonly wakes: CounterSeries;
  private readonly wakeDuration: HistogramSeries;
  private readonly waitingGauge: Gauge;
  private waitingNow = 0;

  /** route → model → node → one child per status class. */
  private readonly requestChildren = new Map<
    string,
    Map<string, Map<string, (CounterCell | undefined)[]>>
  >();
  private readonly durationChildren = new Map<string, HistogramCell>();
  private readonly firstByteChildren = new Map<string, HistogramCell>();
  private readonly abortChildren = new Map<string, CounterCell>();
  private readonly upstreamChildren = new Map<string, CounterCell>();

  /**
   * `snapshots`: the kept node snapshots, read when scraped. `scheduling`: the scheduler's
   * readout (docs/design.md D25); without it the in-flight and queue-depth gauges have no series.
   */
  constructor(snapshots: () => Promise<readonly NodeSnapshot[]>, scheduling?: SchedulingReadout) {
    const text = new Registry<RegistryContentType>();
    const openMetrics = new Registry<RegistryContentType>();
    openMetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const registers = [text, openMetrics];
    super(registers);
    this.text = text;
    this.openMetrics = openMetrics;
    this.requests = new CounterSeries({
      name: 'svc_gateway_requests_total',
      help: 'Requests answered by the gateway, by route, model, node and status class.',
      labelNames: ['route', 'model', 'node', 'status_class'],
      registers,
    });
    this.duration = new HistogramSeries({
      name: 'svc_gateway_request_duration_seconds',
      help: 'Time from a request arriving to its reply ending (or the caller leaving), by route.',
      labelNames: ['route'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.firstByte = new HistogramSeries({
      name: 'svc_gateway_time_to_first_byte_seconds',
      help: "Time from a model request arriving to the engine's reply headers, wakes included, by route.",
      labelNames: ['route'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.aborts = new CounterSeries({
      name: 'svc_gateway_client_aborts_total',
      help: 'Requests whose caller went away before the reply ended, by route.',
      labelNames: ['route'],
      registers,
    });
    this.upstreamErrors = new CounterSeries({
      name: 'svc_gateway_upstream_errors_total',
      help: 'Model requests whose engine failed to answer or timed out, by node.',
      labelNames: ['node'],
      registers,
    });
    this.wakes = new CounterSeries({
      name: 'svc_gateway_wakes_total',
      help: 'Nodes the gateway started for a request, by node and outcome (ready, failed, timeout).',
      labelNames: ['node', 'outcome'],
      registers,
    });
    this.wakeDuration = new HistogramSeries({
      name: 'svc_gateway_wake_duration_seconds',
      help: 'Time from asking a node to start to its engine answering (or the wake failing), by node.',
      labelNames: ['node'],
      buckets: WAKE_BUCKETS,
      registers,
    });
    this.waitingGauge = new Gauge({
      name: 'svc_gateway_requests_waiting_on_wake',
      help: 'Requests held until a waking or loading node answers.',
      registers,
      collect: () => {
        this.waitingGauge.set(this.waitingNow);
      },
    });
    registerScrapeGauges(registers, snapshots, scheduling);
  }

  /**
   * The one call per request, at its end (the close handler in app.ts). Times are
   * performance.now() readings; `aborted` means the caller left before the reply ended.
   */
  record(
    route: MetricsRoute,
    facts: RequestFacts,
    status: number,
    startedMs: number,
    endedMs: number,
    aborted: boolean,
  ): void {
    const node = facts.node ?? '';
    if (node !== '' && facts.repliedAt !== undefined) {
      this.served.add(node);
    }
    const model = node === '' ? '' : (facts.model ?? '');
    const byModel = child(
      this.requestChildren,
      route,
      () => new Map<string, Map<string, (CounterCell | undefined)[]>>(),
    );
    const byNode = child(byModel, model, () => new Map<string, (CounterCell | undefined)[]>());
    const classes = child(byNode, node, (): (CounterCell | undefined)[] => []);
    const index = Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1;
    let counter = classes[index];
    if (counter === undefined) {
      counter = this.requests.cell(route, model, node, STATUS_CLASSES[index] ?? '5xx');
      classes[index] = counter;
    }
    counter.inc();
    child(this.durationChildren, route, () => this.duration.cell(route)).observe(
      (endedMs - startedMs) / 1000,
    );
    if (facts.repliedAt !== undefined) {
      child(this.firstByteChildren, route, () => this.firstByte.cell(route)).observe(
        (facts.repliedAt - startedMs) / 1000,
      );
    }
    if (facts.upstreamError === true && node !== '') {
      child(this.upstreamChildren, node, () => this.upstreamErrors.cell(node)).inc();
    } else if (aborted) {
      child(this.abortChildren, route, () => this.aborts.cell(route)).inc();
    }
  }

  /**
   * A node failed before its first byte and the request was retried on its fallback
   * (docs/design.md D30 `failed`): the failure is the failed node's, counted now, since the
   * request's one `record` at its end names the fallback and counts the fallback's own outcome.
   */
  upstreamFailed(node: string): void {
    child(this.upstreamChildren, node, () => this.upstreamErrors.cell(node)).inc();
  }

  /** Both registries, for series registered beside these (docs/design.md D29 caller usage). */
  get registries(): Registry<RegistryContentType>[] {
    return [this.text, this.openMetrics];
  }

  /** A request starts waiting for a waking or loading node. */
  waitStarted(): void {
    this.waitingNow += 1;
  }

  waitEnded(): void {
    this.waitingNow -= 1;
  }

  wakeEnded(node: string, outcome: WakeOutcome, seconds: number): void {
    this.wakes.cell(node, outcome).inc();
    this.wakeDuration.cell(node).observe(seconds);
  }

  /** The exposition, OpenMetrics when the scraper asks for it. */
  async exposition(openMetrics: boolean): Promise<{ contentType: string; body: string }> {
    const registry = openMetrics ? this.openMetrics : this.text;
    return { contentType: registry.contentType, body: await registry.metrics() };
  }
}
