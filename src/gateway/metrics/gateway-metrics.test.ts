/**
 * The gateway's series: the route label is a fixed set, one record per request moves the counter
 * and both histograms, a refused request never adds a model label, and node state is read from
 * the snapshots at scrape time. Parsed back with the same Prometheus parser the daemon uses.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import type { StatusResponse } from '../../core/contract/schemas.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshot.ts';
import { parsePrometheus, type PromSample, sampleValue } from '../../core/metrics/prometheus.ts';
import { GatewayMetrics } from './gateway-metrics.ts';
import type { SchedulingReadout } from './scheduling-readout.ts';

const node = (name: string): FleetNode => daemonNode(name, { port: 1 });

function running(name: string, status: Partial<StatusResponse> = {}): NodeSnapshot {
  return { node: node(name), ok: true, status: { state: 'running', version: 'dev', ...status } };
}

async function scrape(metrics: GatewayMetrics): Promise<PromSample[]> {
  return parsePrometheus((await metrics.exposition(false)).body);
}

const value = sampleValue;

/** One series' lines of the text exposition, its HELP and TYPE first unless `comments` is false. */
function series(text: string, name: string, comments = true): string {
  return text
    .split('\n')
    .filter(
      (line) =>
        line.startsWith(`${name}{`) ||
        line.startsWith(`${name} `) ||
        (comments && (line.startsWith(`# HELP ${name} `) || line.startsWith(`# TYPE ${name} `))),
    )
    .join('\n');
}

describe('GatewayMetrics', () => {
  it('counts a request by route, model, node and status class, with both histograms', async () => {
    const metrics = new GatewayMetrics(() => Promise.resolve([]));
    const context = { model: 'chat', node: 'a', repliedAt: 1_250 };
    metrics.record('/v1/chat/completions', context, 200, 1_000, 3_000, false);
    metrics.record('/v1/chat/completions', context, 200, 1_000, 1_500, false);
    metrics.record('/v1/chat/completions', { model: 'typo' }, 404, 0, 1, false);
    const samples = await scrape(metrics);
    const labels = { route: '/v1/chat/completions', model: 'chat', node: 'a', status_class: '2xx' };
    expect(value(samples, 'svc_gateway_requests_total', labels)).toBe(2);
    // Refused before routing: no model label (a caller's typo never becomes a series).
    expect(
      value(samples, 'svc_gateway_requests_total', { model: '', node: '', status_class: '4xx' }),
    ).toBe(1);
    expect(samples.some((sample) => sample.labels['model'] === 'typo')).toBe(false);
    const route = { route: '/v1/chat/completions' };
    expect(value(samples, 'svc_gateway_request_duration_seconds_count', route)).toBe(3);
    expect(value(samples, 'svc_gateway_request_duration_seconds_sum', route)).toBeCloseTo(2.501);
    expect(value(samples, 'svc_gateway_time_to_first_byte_seconds_count', route)).toBe(2);
    expect(value(samples, 'svc_gateway_time_to_first_byte_seconds_sum', route)).toBeCloseTo(0.5);
    expect(
      value(samples, 'svc_gateway_time_to_first_byte_seconds_bucket', { ...route, le: '0.25' }),
    ).toBe(2);
  });

  it('tells client aborts from upstream errors', async () => {
    const metrics = new GatewayMetrics(() => Promise.resolve([]));
    metrics.record('/v1/completions', { model: 'm', node: 'a' }, 200, 0, 10, true);
    metrics.record(
      '/v1/completions',
      { model: 'm', node: 'b', upstreamError: true },
      502,
      0,
      10,
      false,
    );
    metrics.record(
      '/v1/completions',
      { model: 'm', node: 'b', upstreamError: true },
      200,
      0,
      10,
      true,
    );
    const samples = await scrape(metrics);
    expect(value(samples, 'svc_gateway_client_aborts_total', { route: '/v1/completions' })).toBe(1);
    expect(value(samples, 'svc_gateway_upstream_errors_total', { node: 'b' })).toBe(2);
    expect(value(samples, 'svc_gateway_upstream_errors_total', { node: 'a' })).toBeUndefined();
  });

  it("counts a failure retried on the fallback against the failed node, the reply on the fallback's", async () => {
    const metrics = new GatewayMetrics(() => Promise.resolve([]));
    metrics.upstreamFailed('flaky');
    metrics.record(
      '/v1/chat/completions',
      { model: 'm', node: 'hosted', repliedAt: 5 },
      200,
      0,
      10,
      false,
    );
    const samples = await scrape(metrics);
    expect(value(samples, 'svc_gateway_upstream_errors_total', { node: 'flaky' })).toBe(1);
    expect(value(samples, 'svc_gateway_upstream_errors_total', { node: 'hosted' })).toBeUndefined();
    const ok = { route: '/v1/chat/completions', model: 'm', node: 'hosted', status_class: '2xx' };
    expect(value(samples, 'svc_gateway_requests_total', ok)).toBe(1);
  });

  it('counts wakes by outcome and requests waiting on one', async () => {
    const metrics = new GatewayMetrics(() => Promise.resolve([]));
    metrics.wakeEnded('a', 'ready', 2);
    metrics.wakeEnded('a', 'timeout', 300);
    metrics.waitStarted();
    metrics.waitStarted();
    metrics.waitEnded();
    const samples = await scrape(metrics);
    expect(value(samples, 'svc_gateway_wakes_total', { node: 'a', outcome: 'ready' })).toBe(1);
    expect(value(samples, 'svc_gateway_wakes_total', { node: 'a', outcome: 'timeout' })).toBe(1);
    expect(value(samples, 'svc_gateway_wake_duration_seconds_count', { node: 'a' })).toBe(2);
    expect(value(samples, 'svc_gateway_requests_waiting_on_wake')).toBe(1);
  });

  it('reads node state and readiness from the snapshots when scraped', async () => {
    let snapshots: NodeSnapshot[] = [
      running('a', { ready: 'ready' }),
      { node: node('b'), ok: false, outcome: 'unreachable', detail: 'refused' },
    ];
    const metrics = new GatewayMetrics(() => Promise.resolve(snapshots));
    let samples = await scrape(metrics);
    expect(value(samples, 'svc_gateway_node_state', { node: 'a', state: 'running' })).toBe(1);
    expect(value(samples, 'svc_gateway_node_state', { node: 'a', state: 'stopped' })).toBe(0);
    expect(value(samples, 'svc_gateway_node_ready', { node: 'a' })).toBe(1);
    expect(value(samples, 'svc_gateway_node_state', { node: 'b', state: 'unreachable' })).toBe(1);
    expect(value(samples, 'svc_gateway_node_ready', { node: 'b' })).toBeUndefined();
    snapshots = [running('a', { state: 'stopped' })];
    samples = await scrape(metrics);
    expect(value(samples, 'svc_gateway_node_state', { node: 'a', state: 'stopped' })).toBe(1);
    expect(value(samples, 'svc_gateway_node_ready', { node: 'a' })).toBeUndefined();
    expect(
      value(samples, 'svc_gateway_node_state', { node: 'b', state: 'unreachable' }),
    ).toBeUndefined();
  });

  it('answers OpenMetrics when asked, with HELP on every series', async () => {
    const metrics = new GatewayMetrics(() => Promise.resolve([running('a')]));
    metrics.record('/health', {}, 200, 0, 1, false);
    const open = await metrics.exposition(true);
    expect(open.contentType).toContain('application/openmetrics-text');
    expect(open.body.trimEnd().endsWith('# EOF')).toBe(true);
    const text = (await metrics.exposition(false)).body;
    const names = new Set(text.match(/^# TYPE (\S+)/gm)?.map((line) => line.slice(7)));
    for (const name of names) {
      expect(text).toContain(`# HELP ${name} `);
    }
    expect(names.size).toBe(20);
  });

  it('keeps every counter its _total in the classic format after an OpenMetrics scrape', async () => {
    // A Prometheus server asks for OpenMetrics, curl and many agents for the classic format: each
    // must see the same names whatever the other asked first.
    const metrics = new GatewayMetrics(() => Promise.resolve([running('a')]));
    metrics.record('/v1/models', {}, 200, 0, 1, false);
    metrics.rejected('queue_full');
    const before = (await metrics.exposition(false)).body;
    const open = (await metrics.exposition(true)).body;
    expect(open).toContain('# TYPE svc_gateway_requests counter');
    expect(open).toMatch(/^svc_gateway_requests_total\{/m);
    const after = (await metrics.exposition(false)).body;
    expect(after).toBe(before);
    expect(after).toContain('# TYPE svc_gateway_requests_total counter');
    expect(after).toContain('svc_gateway_rejected_total{reason="queue_full"} 1');
  });

  it('reads in flight, slots and the queue at scrape time, and counts what the scheduler did', async () => {
    let queued = new Map([['chat', 2]]);
    const scheduling: SchedulingReadout = {
      inFlight: (name) => (name === 'a' ? 2 : 0),
      queued: () => queued,
      idleStopAt: () => undefined,
    };
    const snapshots: NodeSnapshot[] = [
      running('a', { state: 'running', ...{ slots: 2, busy: 2 } }),
      running('b', { state: 'stopped', ...{ slots: 4 } }),
    ];
    const metrics = new GatewayMetrics(() => Promise.resolve(snapshots), scheduling);
    metrics.rejected('queue_full');
    metrics.rejected('queue_full');
    metrics.scaleOutWake('chat');
    metrics.idleStopped('b');
    metrics.swapped('a100');
    metrics.wakeCommandRan('b', 'ok');
    metrics.wakeCommandRan('b', 'timeout');
    let text = (await metrics.exposition(false)).body;
    expect(series(text, 'svc_gateway_queue_depth')).toBe(
      [
        '# HELP svc_gateway_queue_depth Requests waiting in the queue now, by the model they ask for.',
        '# TYPE svc_gateway_queue_depth gauge',
        'svc_gateway_queue_depth{model="chat"} 2',
      ].join('\n'),
    );
    expect(series(text, 'svc_gateway_node_in_flight', false)).toBe(
      ['svc_gateway_node_in_flight{node="a"} 2', 'svc_gateway_node_in_flight{node="b"} 0'].join(
        '\n',
      ),
    );
    // Only a running node's slots: a stopped engine offers none.
    expect(series(text, 'svc_gateway_node_slots', false)).toBe(
      'svc_gateway_node_slots{node="a"} 2',
    );
    expect(series(text, 'svc_gateway_rejected_total')).toBe(
      [
        '# HELP svc_gateway_rejected_total Requests the scheduler refused, by reason (queue_full, queue_timeout, group_busy, wake_timeout, wake_failed, no_node).',
        '# TYPE svc_gateway_rejected_total counter',
        'svc_gateway_rejected_total{reason="queue_full"} 2',
        'svc_gateway_rejected_total{reason="queue_timeout"} 0',
        'svc_gateway_rejected_total{reason="group_busy"} 0',
        'svc_gateway_rejected_total{reason="wake_timeout"} 0',
        'svc_gateway_rejected_total{reason="wake_failed"} 0',
        'svc_gateway_rejected_total{reason="no_node"} 0',
      ].join('\n'),
    );
    expect(
      [
        'svc_gateway_scale_out_wakes_total',
        'svc_gateway_idle_stops_total',
        'svc_gateway_swaps_total',
        'svc_gateway_wake_commands_total',
      ].map((name) => series(text, name, false)),
    ).toEqual([
      'svc_gateway_scale_out_wakes_total{model="chat"} 1',
      'svc_gateway_idle_stops_total{node="b"} 1',
      'svc_gateway_swaps_total{group="a100"} 1',
      'svc_gateway_wake_commands_total{node="b",outcome="ok"} 1\nsvc_gateway_wake_commands_total{node="b",outcome="timeout"} 1',
    ]);
    // A model's queue emptied: it stays, at 0.
    queued = new Map();
    text = (await metrics.exposition(false)).body;
    expect(series(text, 'svc_gateway_queue_depth', false)).toBe(
      'svc_gateway_queue_depth{model="chat"} 0',
    );
  });

  it('buckets queue waits from milliseconds to minutes', async () => {
    const metrics = new GatewayMetrics(() => Promise.resolve([]));
    metrics.queueWaited(0.003);
    metrics.queueWaited(0.2);
    metrics.queueWaited(90);
    const samples = await scrape(metrics);
    const bucket = (le: string) => value(samples, 'svc_gateway_queue_wait_seconds_bucket', { le });
    expect([bucket('0.005'), bucket('0.25'), bucket('60'), bucket('120'), bucket('+Inf')]).toEqual([
      1, 2, 2, 3, 3,
    ]);
    expect(value(samples, 'svc_gateway_queue_wait_seconds_sum')).toBeCloseTo(90.203);
  });

  it('has no in-flight or queue series without a readout: unknown is absent', async () => {
    const metrics = new GatewayMetrics(() =>
      Promise.resolve([running('a', { state: 'running', ...{ slots: 2 } })]),
    );
    const text = (await metrics.exposition(false)).body;
    expect(series(text, 'svc_gateway_node_in_flight', false)).toBe('');
    expect(series(text, 'svc_gateway_queue_depth', false)).toBe('');
    expect(series(text, 'svc_gateway_node_slots', false)).toBe(
      'svc_gateway_node_slots{node="a"} 2',
    );
  });
});
