/**
 * `GET /metrics` for a node: every reading of the record in the Prometheus text format, HELP and
 * TYPE for each metric, base units, counters as `_total`, absent readings absent (never 0).
 */
import { describe, expect, it } from 'vitest';

import type { Stats } from '../contract/schemas.ts';
import { exposition, type ExpositionInput, wantsOpenMetrics } from './exposition.ts';
import { parsePrometheus, type PromSample, sampleValue } from './prometheus.ts';

const GIB = 1024 ** 3;

const RUNNING: Stats = {
  state: 'running',
  runner: 'llamacpp',
  modelId: 'tiny.gguf',
  uptimeSeconds: 42,
  ready: 'ready',
  lastActiveAt: '2026-11-23T10:00:00.000Z',
  tokens: { running: 2, counter: 70, promptTokens: 21, generationTokens: 33, requests: 4 },
  cpu: { utilization: 25 },
  memory: { used: 8 * GIB, total: 32 * GIB },
  gpus: [
    {
      index: 0,
      name: 'NVIDIA H100 80GB HBM3',
      utilization: 80,
      memoryUsed: 12 * GIB,
      memoryTotal: 80 * GIB,
      temperature: 67,
    },
    { index: 1, name: 'NVIDIA "B", 2', utilization: 5 },
  ],
};

const input = (stats: Stats, extra: Partial<ExpositionInput> = {}): ExpositionInput => ({
  stats,
  lifetime: { starts: 3, crashes: 1, lastExitCode: 3, slotSaves: 4, slotRestores: 2 },
  version: '1.2.0',
  ...extra,
});

/** Every sample line parses (none skipped) and every metric has HELP and TYPE. */
async function scrape(value: ExpositionInput): Promise<PromSample[]> {
  const { body, contentType } = await exposition(value);
  expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  const lines = body.split('\n').filter((line) => line !== '');
  const samples = parsePrometheus(body);
  expect(samples).toHaveLength(lines.filter((line) => !line.startsWith('#')).length);
  for (const name of new Set(samples.map((sample) => sample.name))) {
    expect(lines.some((line) => line.startsWith(`# HELP ${name} `))).toBe(true);
    const type = name.endsWith('_total') ? 'counter' : 'gauge';
    expect(lines).toContain(`# TYPE ${name} ${type}`);
  }
  return samples;
}

const value = sampleValue;

describe('exposition', () => {
  it('reports every reading of a running engine in base units', async () => {
    const samples = await scrape(input(RUNNING));
    expect(value(samples, 'svc_engine_state', { state: 'running' })).toBe(1);
    expect(value(samples, 'svc_engine_state', { state: 'idle' })).toBe(0);
    expect(value(samples, 'svc_engine_state', { state: 'stopped' })).toBe(0);
    expect(value(samples, 'svc_engine_state', { state: 'crashed' })).toBe(0);
    expect(value(samples, 'svc_engine_ready')).toBe(1);
    expect(value(samples, 'svc_engine_uptime_seconds')).toBe(42);
    expect(value(samples, 'svc_engine_last_active_timestamp_seconds')).toBe(
      Date.parse('2026-11-23T10:00:00.000Z') / 1000,
    );
    expect(value(samples, 'svc_engine_prompt_tokens_total')).toBe(21);
    expect(value(samples, 'svc_engine_generation_tokens_total')).toBe(33);
    expect(value(samples, 'svc_engine_requests_total')).toBe(4);
    expect(value(samples, 'svc_engine_requests_in_flight')).toBe(2);
    expect(value(samples, 'svc_host_cpu_utilization_ratio')).toBe(0.25);
    expect(value(samples, 'svc_host_memory_used_bytes')).toBe(8 * GIB);
    expect(value(samples, 'svc_host_memory_total_bytes')).toBe(32 * GIB);
    const h100 = { index: '0', name: 'NVIDIA H100 80GB HBM3' };
    expect(value(samples, 'svc_gpu_utilization_ratio', h100)).toBe(0.8);
    expect(value(samples, 'svc_gpu_memory_used_bytes', h100)).toBe(12 * GIB);
    expect(value(samples, 'svc_gpu_memory_total_bytes', h100)).toBe(80 * GIB);
    expect(value(samples, 'svc_gpu_temperature_celsius', h100)).toBe(67);
    // A name with quotes and a comma survives the label escaping.
    expect(value(samples, 'svc_gpu_utilization_ratio', { index: '1', name: 'NVIDIA "B", 2' })).toBe(
      0.05,
    );
    expect(value(samples, 'svc_gpu_temperature_celsius', { index: '1' })).toBeUndefined();
    expect(value(samples, 'svc_engine_starts_total')).toBe(3);
    expect(value(samples, 'svc_engine_crashes_total')).toBe(1);
    expect(value(samples, 'svc_engine_last_exit_code')).toBe(3);
    expect(value(samples, 'svc_engine_slot_saves_total')).toBe(4);
    expect(value(samples, 'svc_engine_slot_restores_total')).toBe(2);
    expect(value(samples, 'svc_build_info', { version: '1.2.0' })).toBe(1);
  });

  it('leaves out what is not read instead of reporting 0', async () => {
    const samples = await scrape(input({ state: 'idle' }, { lifetime: { starts: 0, crashes: 0 } }));
    const names = new Set(samples.map((sample) => sample.name));
    expect([...names].sort()).toEqual([
      'svc_build_info',
      'svc_engine_crashes_total',
      'svc_engine_slot_restores_total',
      'svc_engine_slot_saves_total',
      'svc_engine_starts_total',
      'svc_engine_state',
    ]);
    expect(value(samples, 'svc_engine_state', { state: 'idle' })).toBe(1);
  });

  it('reports not-ready as 0 and a stopped engine without uptime', async () => {
    const loading = await scrape(input({ ...RUNNING, ready: 'not-ready' }));
    expect(value(loading, 'svc_engine_ready')).toBe(0);
    const stopped = await scrape(
      input({ state: 'stopped', uptimeSeconds: 0, lastActiveAt: '2026-11-23T10:00:00.000Z' }),
    );
    expect(value(stopped, 'svc_engine_uptime_seconds')).toBeUndefined();
    expect(value(stopped, 'svc_engine_last_active_timestamp_seconds')).toBeDefined();
  });

  it('speaks OpenMetrics when asked, ending with # EOF', async () => {
    const { body, contentType } = await exposition(input(RUNNING), true);
    expect(contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(body.trimEnd().endsWith('# EOF')).toBe(true);
    expect(body).toContain('# TYPE svc_engine_requests counter');
    expect(body).toContain('svc_engine_requests_total 4');
  });

  it.each([
    ['application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5', true],
    ['text/plain', false],
    ['*/*', false],
    [undefined, false],
  ])('Accept %j asks for OpenMetrics: %s', (accept, wanted) => {
    expect(wantsOpenMetrics(accept)).toBe(wanted);
  });
});
