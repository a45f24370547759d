/**
 * The readers of `svc fleet`: the metrics table and rates, and the log byte cursor (the route's
 * are in route-command.test.ts).
 */
import { describe, expect, it } from 'vitest';

import type { LogsResponse } from '../core/contract/schemas.ts';
import { advance, START_CURSOR } from '../core/runner/log-cursor.ts';
import { prefixer } from './log-prefix.ts';
import { metricsText, ratesBetween, readingOf } from './metrics.ts';

describe('fleet metrics', () => {
  it('computes rates between readings, none across a counter reset', () => {
    const first = readingOf(
      { state: 'running', tokens: { generationTokens: 100, requests: 2 } },
      1_000,
    );
    const second = readingOf(
      { state: 'running', tokens: { generationTokens: 300, requests: 6 } },
      3_000,
    );
    expect(ratesBetween(first, second)).toEqual({ tokensPerSecond: 100, requestsPerSecond: 2 });
    expect(ratesBetween(second, first)).toBeUndefined();
    expect(readingOf({ state: 'stopped' }, 1)).toBeUndefined();
  });

  it('draws a row per node, readings or the reason there are none', () => {
    const text = metricsText([
      {
        node: 'a',
        outcome: 'ok',
        metrics: {
          state: 'running',
          modelId: 'tiny',
          tokens: { running: 1, requests: 5, promptTokens: 40, generationTokens: 1200 },
          cpu: { utilization: 12.4 },
          gpus: [
            { index: 0, utilization: 80, memoryUsed: 2 * 1024 ** 3, memoryTotal: 8 * 1024 ** 3 },
          ],
        },
        rates: { tokensPerSecond: 31.25, requestsPerSecond: 0.5 },
      },
      { node: 'b', outcome: 'unreachable', error: 'ECONNREFUSED' },
    ]);
    expect(text).toMatch(/^NODE +STATE +MODEL +IN FLIGHT +REQUESTS/);
    expect(text).toMatch(
      /\na +running +tiny +1 +5 +40 +1,200 +31\.3 +0\.50 +12% +— +80% 2\.0 GiB\/8\.0 GiB\n/,
    );
    expect(text).toMatch(/\nb +unreachable +ECONNREFUSED\n$/);
  });
});

describe('fleet log cursor', () => {
  const reply = (content: string, nextOffset: number, size = nextOffset): LogsResponse => ({
    content,
    nextOffset,
    size,
  });

  it('keeps the whole first line of a tail (the reader starts it at a line), and a partial last line for the next read', () => {
    const first = advance(START_CURSOR, reply('whole\npart', 120));
    expect(first.lines).toEqual(['whole']);
    expect(first.cursor).toEqual({ offset: 120, carry: 'part' });
    const next = advance(first.cursor, reply('ial\nnew\n', 128));
    expect(next.lines).toEqual(['partial', 'new']);
    expect(next.cursor).toEqual({ offset: 128, carry: '' });
  });

  it('keeps the first line of a log read from its start; more when the reply was a slice', () => {
    const step = advance(START_CURSOR, reply('one\ntwo\n', 8, 100));
    expect(step.lines).toEqual(['one', 'two']);
    expect(step.more).toBe(true);
  });

  it('reads a missing log from its start once it exists, and a replaced one from its new tail', () => {
    const missing = advance(START_CURSOR, { content: '', nextOffset: 0, size: 0, missing: true });
    expect(missing.cursor).toEqual({ offset: 0, carry: '' });
    const stale = advance(
      { offset: 500, carry: 'x' },
      { content: 'new one\n', nextOffset: 20, size: 20, staleOffset: true },
    );
    // The replaced log's tail is shown; what was carried from the old log is not.
    expect(stale.lines).toEqual(['new one']);
    expect(stale.cursor).toEqual({ offset: 20, carry: '' });
    expect(stale.notice).toContain('replaced');
  });

  it('prefixes by node only when several are shown', () => {
    expect(prefixer(['a'])('a', 'x')).toBe('x');
    expect(prefixer(['a', 'long'])('a', 'x')).toBe('a    | x');
  });
});
