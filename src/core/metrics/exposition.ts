/**
 * `GET /metrics` for a node (daemon, `serve --api`): the Prometheus text exposition (or OpenMetrics
 * when asked) of the same Stats that status and metrics answer from (spec §3: one record), plus
 * the daemon's own start and crash counts. Built by prom-client on a fresh registry per scrape,
 * so a reading that is absent now is absent from the page instead of frozen at its last value.
 * Names follow Prometheus conventions: `svc_` prefix, base units (bytes, seconds, ratios 0–1),
 * `_total` on counters.
 */
import { Counter, Gauge, Registry, type RegistryContentType } from 'prom-client';

import type { EngineState, Stats } from '../contract/schemas.ts';
import type { LifetimeCounts } from '../state/record.ts';

export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
export const OPENMETRICS_CONTENT_TYPE = Registry.OPENMETRICS_CONTENT_TYPE;

const STATES: readonly EngineState[] = ['idle', 'running', 'stopped', 'crashed'];

export interface ExpositionInput {
  readonly stats: Stats;
  readonly lifetime: LifetimeCounts;
  readonly version: string;
}

/** OpenMetrics only when the scraper lists it in Accept (Prometheus does; curl does not). */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  return accept?.includes('application/openmetrics-text') === true;
}

type Labels = Record<string, string | number>;

/**
 * A gauge set from readings. A metric with no reading at all is not registered: prom-client would
 * print an unlabelled one as 0, and an absent reading is not a zero.
 */
function gauge(
  registry: Registry<RegistryContentType>,
  name: string,
  help: string,
  readings: readonly (readonly [Labels, number | undefined])[],
  labelNames: readonly string[] = [],
): void {
  const present = readings.filter(
    (reading): reading is readonly [Labels, number] => reading[1] !== undefined,
  );
  if (present.length === 0) {
    return;
  }
  const metric = new Gauge({ name, help, labelNames, registers: [registry] });
  for (const [labels, value] of present) {
    metric.set(labels, value);
  }
}

/** A counter holding an absolute cumulative value (the engine's own counters, our counts). */
function counter(
  registry: Registry<RegistryContentType>,
  name: string,
  help: string,
  value: number | undefined,
): void {
  if (value === undefined) {
    return;
  }
  new Counter({ name, help, registers: [registry] }).inc(value);
}

const ratio = (percent: number | undefined): number | undefined =>
  percent === undefined ? undefined : percent / 100;

export async function exposition(
  { stats, lifetime, version }: ExpositionInput,
  openMetrics = false,
): Promise<{ contentType: string; body: string }> {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(
    openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE,
  );
  const running = stats.state === 'running';

  gauge(
    registry,
    'svc_build_info',
    'The svc build serving this endpoint.',
    [[{ version }, 1]],
    ['version'],
  );
  gauge(
    registry,
    'svc_engine_state',
    'Engine state: 1 for the current state, 0 for the others.',
    STATES.map((state) => [{ state }, state === stats.state ? 1 : 0]),
    ['state'],
  );
  // Absent when readiness does not apply (spec §2.1 `ready` absence rules).
  gauge(
    registry,
    'svc_engine_ready',
    'Whether the running engine last answered its health check.',
    [[{}, stats.ready === undefined ? undefined : stats.ready === 'ready' ? 1 : 0]],
  );
  gauge(registry, 'svc_engine_uptime_seconds', 'Seconds since the running engine started.', [
    [{}, running ? (stats.uptimeSeconds ?? 0) : undefined],
  ]);
  gauge(
    registry,
    'svc_engine_last_active_timestamp_seconds',
    'When the engine last did work (Unix seconds); absent until an engine has run.',
    [[{}, stats.lastActiveAt === undefined ? undefined : Date.parse(stats.lastActiveAt) / 1000]],
  );

  const tokens = stats.tokens;
  counter(
    registry,
    'svc_engine_prompt_tokens_total',
    "Prompt tokens the engine processed (the engine's own counter).",
    tokens?.promptTokens,
  );
  counter(
    registry,
    'svc_engine_generation_tokens_total',
    "Tokens the engine generated (the engine's own counter).",
    tokens?.generationTokens,
  );
  counter(
    registry,
    'svc_engine_requests_total',
    "Requests the engine completed (the engine's own counter).",
    tokens?.requests,
  );
  gauge(
    registry,
    'svc_engine_requests_in_flight',
    'Requests the engine is processing or queueing.',
    [[{}, tokens?.running]],
  );

  gauge(registry, 'svc_host_cpu_utilization_ratio', 'Whole-host CPU utilisation, 0 to 1.', [
    [{}, ratio(stats.cpu?.utilization)],
  ]);
  gauge(registry, 'svc_host_memory_used_bytes', 'Host memory in use.', [[{}, stats.memory?.used]]);
  gauge(registry, 'svc_host_memory_total_bytes', 'Host memory in total.', [
    [{}, stats.memory?.total],
  ]);

  const gpus = stats.gpus ?? [];
  const gpuLabels = (gpu: (typeof gpus)[number]): Labels => ({
    index: gpu.index,
    name: gpu.name ?? '',
  });
  const perGpu = (
    name: string,
    help: string,
    read: (gpu: (typeof gpus)[number]) => number | undefined,
  ): void => {
    gauge(
      registry,
      name,
      help,
      gpus.map((gpu) => [gpuLabels(gpu), read(gpu)]),
      ['index', 'name'],
    );
  };
  perGpu('svc_gpu_utilization_ratio', 'GPU utilisation, 0 to 1.', (gpu) => ratio(gpu.utilization));
  perGpu('svc_gpu_memory_used_bytes', 'GPU memory in use.', (gpu) => gpu.memoryUsed);
  perGpu('svc_gpu_memory_total_bytes', 'GPU memory in total.', (gpu) => gpu.memoryTotal);
  perGpu('svc_gpu_temperature_celsius', 'GPU temperature.', (gpu) => gpu.temperature);

  counter(
    registry,
    'svc_engine_starts_total',
    'Engines this process started (failed starts excluded).',
    lifetime.starts,
  );
  counter(
    registry,
    'svc_engine_crashes_total',
    'Engines that exited unprompted while running.',
    lifetime.crashes,
  );
  // docs/design.md D32: keepCache's slot files written before stops and loaded after starts.
  counter(
    registry,
    'svc_engine_slot_saves_total',
    'Engine slots saved before a graceful stop (keepCache).',
    lifetime.slotSaves ?? 0,
  );
  counter(
    registry,
    'svc_engine_slot_restores_total',
    'Engine slots restored after a start (keepCache).',
    lifetime.slotRestores ?? 0,
  );
  gauge(registry, 'svc_engine_last_exit_code', "The last engine exit's code, when it had one.", [
    [{}, lifetime.lastExitCode],
  ]);

  return { contentType: registry.contentType, body: await registry.metrics() };
}
