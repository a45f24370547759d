/**
 * The metrics section (spec §1.1): state and uptime, what is served, last active, then one line
 * per series, CPU, RAM and each GPU's utilisation and memory, as a gauge of the current reading
 * beside a bar of its retained history, then the token and request counters. Pure: Stats and
 * `now` in, lines out.
 */
import type { Stats } from '../contract/schemas.ts';
import { ENGINES, isRunner } from '../engines/engine-table.ts';
import { formatBytes, formatCount, formatDuration, gauge, sparkline } from './gauges.ts';

type History = NonNullable<Stats['history']>;

interface Series {
  readonly label: string;
  readonly percent: number | undefined;
  readonly history: readonly (number | undefined)[];
  readonly detail: string;
}

/** A node's stats; a remote environment's state may be any word its control plane uses. */
export type ViewStats = Omit<Stats, 'state'> & { readonly state: string };

/** Every GPU index a reading names: the current readings and the retained history. */
export function gpuIndexesOf(stats: ViewStats): number[] {
  return [
    ...new Set<number>([
      ...(stats.gpus ?? []).map((gpu) => gpu.index),
      ...(stats.history ?? []).flatMap((sample) => (sample.g ?? []).map((gpu) => gpu.i)),
    ]),
  ].sort((a, b) => a - b);
}

/**
 * One series per row, always the same rows: CPU and RAM, then two per GPU slot. A reading that is
 * missing leaves its row in place with an empty gauge and a dash, so the section never changes
 * height as readings come and go (a paused log window below it must not move on its own).
 */
function seriesOf(stats: ViewStats, gpuSlots: readonly number[]): Series[] {
  const history: History = stats.history ?? [];
  const memory = stats.memory;
  const series: Series[] = [
    {
      label: 'CPU',
      percent: stats.cpu?.utilization,
      history: history.map((sample) => sample.c),
      detail: stats.cpu === undefined ? '—' : `${stats.cpu.utilization.toFixed(0)}%`,
    },
    {
      label: 'RAM',
      percent:
        memory === undefined || memory.total <= 0 ? undefined : (memory.used / memory.total) * 100,
      history: history.map((sample) => sample.m),
      detail:
        memory === undefined ? '—' : `${formatBytes(memory.used)} / ${formatBytes(memory.total)}`,
    },
  ];
  const slots = [...new Set([...gpuSlots, ...gpuIndexesOf(stats)])].sort((a, b) => a - b);
  const several = slots.length > 1;
  for (const index of slots) {
    const gpu = stats.gpus?.find((entry) => entry.index === index);
    const past = history.map((sample) => sample.g?.find((entry) => entry.i === index));
    const name = several ? `GPU ${index}` : 'GPU';
    const memoryPercent =
      gpu?.memoryUsed === undefined || gpu.memoryTotal === undefined || gpu.memoryTotal <= 0
        ? undefined
        : (gpu.memoryUsed / gpu.memoryTotal) * 100;
    series.push(
      {
        label: `${name} util`,
        percent: gpu?.utilization,
        history: past.map((entry) => entry?.u),
        detail:
          gpu?.utilization === undefined
            ? '—'
            : `${gpu.utilization}%${gpu.temperature === undefined ? '' : `  ${gpu.temperature}°C`}`,
      },
      {
        label: `${name} mem`,
        percent: memoryPercent,
        history: past.map((entry) => entry?.m),
        detail:
          gpu?.memoryUsed === undefined || gpu.memoryTotal === undefined
            ? '—'
            : `${formatBytes(gpu.memoryUsed)} / ${formatBytes(gpu.memoryTotal)}`,
      },
    );
  }
  return series;
}

export interface MetricsView {
  readonly stats: ViewStats;
  readonly now: Date;
  /** Age of the newest sampler reading, when it is old enough to mention (not renewed). */
  readonly staleSeconds?: number;
  /**
   * GPU indexes the view has seen so far (the caller keeps them): their rows stay even while no
   * reading names them, so the section's height depends on the host, never on the readings.
   */
  readonly gpuSlots?: readonly number[];
}

export function metricsLines(
  { stats, now, staleSeconds, gpuSlots = [] }: MetricsView,
  columns: number,
): string[] {
  const lines: string[] = [];
  const engine =
    stats.runner !== undefined && isRunner(stats.runner)
      ? ENGINES[stats.runner].label
      : stats.runner;
  const state =
    stats.state === 'running'
      ? `running  (up ${formatDuration(stats.uptimeSeconds ?? 0)})`
      : stats.state;
  const readiness =
    stats.ready === undefined ? '' : `  ·  ${stats.ready === 'ready' ? 'ready' : 'loading'}`;
  const stale =
    staleSeconds === undefined ? '' : `  ·  readings ${formatDuration(staleSeconds)} old`;
  lines.push(`${state}${readiness}${stale}`);
  // Every row below is always present (a dash stands in for a missing reading): the section has
  // one height for a given set of GPU slots, whatever the engine or the sampler has reported.
  if (engine === undefined) {
    lines.push('engine —');
  } else {
    const served = stats.modelId;
    const alias =
      stats.servedName === undefined || stats.servedName === served
        ? undefined
        : `as ${stats.servedName}`;
    const what = [served, alias].filter((part) => part !== undefined && part !== '').join(' ');
    lines.push(`${engine}  ${what}`.trimEnd());
  }
  if (stats.lastActiveAt === undefined) {
    lines.push('last active —');
  } else {
    const ago = (now.getTime() - Date.parse(stats.lastActiveAt)) / 1000;
    lines.push(`last active ${ago < 1 ? 'just now' : `${formatDuration(ago)} ago`}`);
  }

  const series = seriesOf(stats, gpuSlots);
  const labelWidth = Math.max(...series.map((entry) => entry.label.length));
  const room = Math.max(0, columns - labelWidth - 4 - 22);
  const gaugeWidth = Math.min(20, Math.floor(room / 3));
  const barWidth = Math.min(40, room - gaugeWidth);
  lines.push('');
  for (const entry of series) {
    lines.push(
      `${entry.label.padEnd(labelWidth)}  ${gauge(entry.percent, gaugeWidth)} ${sparkline(entry.history, barWidth)}  ${entry.detail}`,
    );
  }

  // The counters row is there from the first frame, dashes until the first scrape.
  const tokens = stats.tokens ?? {};
  lines.push(
    '',
    `in flight ${formatCount(tokens.running)}   prompt tokens ${formatCount(tokens.promptTokens)}   generated ${formatCount(tokens.generationTokens)}   requests ${formatCount(tokens.requests)}`,
  );
  // One row for collection failures, blank when there are none (several share it).
  const errors = stats.errors ?? [];
  lines.push(errors.length === 0 ? '' : `! ${errors.join('  ·  ')}`);
  return lines;
}
