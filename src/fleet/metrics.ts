/**
 * `svc fleet metrics` as text, pure: one row per node with its state, model, request and token
 * counters, the rates since the previous reading (watch mode), and its CPU, RAM and GPU
 * readings. A node that did not answer, or cannot be asked, is a row saying so.
 */
import type { NodeStats } from '../core/fleet/drivers/node-driver.ts';
import { formatBytes, formatCount } from '../core/view/gauges.ts';
import { table } from './table.ts';

export interface MetricsEntry {
  readonly node: string;
  readonly outcome: string;
  readonly error?: string;
  readonly metrics?: NodeStats;
  readonly rates?: Rates;
}

export interface Rates {
  /** Generated tokens per second since the previous reading. */
  readonly tokensPerSecond: number;
  readonly requestsPerSecond: number;
}

/** A reading of one node's counters and when it was taken, kept between watch redraws. */
export interface CounterReading {
  readonly at: number;
  readonly generationTokens: number;
  readonly requests: number;
}

export function readingOf(stats: NodeStats, at: number): CounterReading | undefined {
  const tokens = stats.tokens;
  if (stats.state !== 'running' || tokens?.generationTokens === undefined) {
    return undefined;
  }
  return { at, generationTokens: tokens.generationTokens, requests: tokens.requests ?? 0 };
}

/** Rates between two readings; none across a counter reset (an engine restart) or no time. */
export function ratesBetween(
  before: CounterReading | undefined,
  after: CounterReading | undefined,
): Rates | undefined {
  if (before === undefined || after === undefined) {
    return undefined;
  }
  const seconds = (after.at - before.at) / 1000;
  const tokens = after.generationTokens - before.generationTokens;
  const requests = after.requests - before.requests;
  if (seconds <= 0 || tokens < 0 || requests < 0) {
    return undefined;
  }
  return { tokensPerSecond: tokens / seconds, requestsPerSecond: requests / seconds };
}

function percent(value: number | undefined): string {
  return value === undefined ? '—' : `${Math.round(value)}%`;
}

function gpuText(stats: NodeStats): string {
  const gpus = stats.gpus ?? [];
  if (gpus.length === 0) {
    return '—';
  }
  return gpus
    .map((gpu) => {
      const memory =
        gpu.memoryUsed === undefined || gpu.memoryTotal === undefined
          ? ''
          : ` ${formatBytes(gpu.memoryUsed)}/${formatBytes(gpu.memoryTotal)}`;
      return `${gpus.length > 1 ? `${gpu.index}:` : ''}${percent(gpu.utilization)}${memory}`;
    })
    .join(' ');
}

export function metricsText(entries: readonly MetricsEntry[]): string {
  const header = [
    'NODE',
    'STATE',
    'MODEL',
    'IN FLIGHT',
    'REQUESTS',
    'PROMPT',
    'GENERATED',
    'TOK/S',
    'REQ/S',
    'CPU',
    'RAM',
    'GPU',
  ];
  const rows = entries.map((entry) => {
    const stats = entry.metrics;
    if (stats === undefined) {
      return { cells: [entry.node, entry.outcome], note: entry.error ?? '' };
    }
    const tokens = stats.tokens ?? {};
    const memory = stats.memory;
    return [
      entry.node,
      stats.ready === 'not-ready' ? `${stats.state} (loading)` : stats.state,
      stats.servedName ?? stats.modelId ?? '—',
      formatCount(tokens.running),
      formatCount(tokens.requests),
      formatCount(tokens.promptTokens),
      formatCount(tokens.generationTokens),
      entry.rates === undefined ? '—' : entry.rates.tokensPerSecond.toFixed(1),
      entry.rates === undefined ? '—' : entry.rates.requestsPerSecond.toFixed(2),
      percent(stats.cpu?.utilization),
      memory === undefined ? '—' : `${formatBytes(memory.used)}/${formatBytes(memory.total)}`,
      gpuText(stats),
    ];
  });
  return `${table([header, ...rows])}\n`;
}
