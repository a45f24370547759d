/**
 * One read of an engine's Prometheus endpoint (spec §3): its token counters and, where its
 * dialect has them, the requests in its slots (docs/design.md D25 `busy`), or why they could not be
 * read. The sampler's ticks, its ready-time read and a metrics request's refresh all read through
 * here.
 */
import { request } from 'undici';

import type { EngineDefinition } from '../engines/engine-table.ts';
import { busyOf, tokenStats } from './engine-metrics.ts';
import { parsePrometheus } from './prometheus.ts';

/** How long a read waits by default (a tick's). */
export const READ_TIMEOUT_MS = 5_000;
const MAX_SCRAPE_BYTES = 1024 * 1024;

/** Where the counters are read: the engine's dialect and the address it answers on. */
export interface CounterTarget {
  readonly engine: Pick<EngineDefinition, 'metrics'>;
  /** `http://host:port` the engine answers on from this machine. */
  readonly baseUrl: string;
}

export interface EngineCounters {
  readonly tokens?: ReturnType<typeof tokenStats>;
  readonly busy?: number;
  readonly error?: string;
}

/** Scrapes the engine's Prometheus endpoint; returns the counters or why it could not. */
export async function readEngineCounters(
  target: CounterTarget,
  key: string | undefined,
  timeoutMs = READ_TIMEOUT_MS,
): Promise<EngineCounters> {
  const dialect = target.engine.metrics;
  if (dialect === undefined) {
    return {};
  }
  const url = `${target.baseUrl}/metrics`;
  try {
    const reply = await request(url, {
      method: 'GET',
      signal: AbortSignal.timeout(timeoutMs),
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    });
    if (reply.statusCode !== 200) {
      await reply.body.dump();
      return { error: `engine metrics (${url}): HTTP ${reply.statusCode}` };
    }
    let text = '';
    for await (const chunk of reply.body) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length > MAX_SCRAPE_BYTES) {
        reply.body.destroy();
        return { error: `engine metrics (${url}): reply larger than ${MAX_SCRAPE_BYTES} bytes` };
      }
    }
    const samples = parsePrometheus(text);
    const tokens = tokenStats(dialect, samples);
    const busy = busyOf(dialect, samples);
    return tokens === undefined
      ? { error: `engine metrics (${url}): no ${dialect} series in the reply` }
      : { tokens, ...(busy === undefined ? {} : { busy }) };
  } catch (error) {
    return { error: `engine metrics (${url}): ${(error as Error).message}` };
  }
}
