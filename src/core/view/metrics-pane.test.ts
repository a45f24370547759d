/**
 * The metrics section (spec §1.1): state and uptime, what is served, last active, a gauge and a
 * history bar per series, the counters and the errors. Stats and `now` in, lines out.
 */
import { describe, expect, it } from 'vitest';

import {
  EVERY_READING,
  GIB,
  secondsAgo,
  seriesLine,
  view,
} from '../../../test/support/screens/metrics-pane-view.ts';
import type { Stats } from '../contract/schemas.ts';
import { metricsLines } from './metrics-pane.ts';

describe('metricsLines', () => {
  it.each(['idle', 'stopped', 'crashed'] as const)(
    '%s with no readings keeps every row, a dash in each',
    (state) => {
      expect(metricsLines(view({ state }), 59)).toEqual([
        state,
        'engine —',
        'last active —',
        '',
        `CPU  ░░░░░░░░░░ ${' '.repeat(20)}  —`,
        `RAM  ░░░░░░░░░░ ${' '.repeat(20)}  —`,
        '',
        'in flight —   prompt tokens —   generated —   requests —',
        '',
      ]);
    },
  );

  it('shows the state and uptime', () => {
    const lines = metricsLines(view({ state: 'running', uptimeSeconds: 90 }), 80);
    expect(lines[0]).toBe('running  (up 1m 30s)');
  });

  it.each([
    ['ready', 'running  (up 5s)  ·  ready'],
    ['not-ready', 'running  (up 5s)  ·  loading'],
  ] as const)('shows readiness %s as %j', (ready, line) => {
    expect(metricsLines(view({ state: 'running', uptimeSeconds: 5, ready }), 80)[0]).toBe(line);
  });

  it('says how old the readings are when they are stale', () => {
    const stats: Stats = { state: 'running', uptimeSeconds: 600, ready: 'ready' };
    expect(metricsLines(view(stats, { staleSeconds: 12 }), 80)[0]).toBe(
      'running  (up 10m 0s)  ·  ready  ·  readings 12s old',
    );
    expect(metricsLines(view(stats), 80)[0]).not.toContain('readings');
  });

  it.each<[string, Partial<Stats>, string]>([
    [
      'label, model and served name',
      { modelId: 'qwen3-8b', servedName: 'chat' },
      'llama.cpp  qwen3-8b as chat',
    ],
    [
      'no alias when the served name is the model',
      { modelId: 'qwen3-8b', servedName: 'qwen3-8b' },
      'llama.cpp  qwen3-8b',
    ],
    ['the model alone', { modelId: 'qwen3-8b' }, 'llama.cpp  qwen3-8b'],
    ['the label alone', {}, 'llama.cpp'],
  ])('shows what is served: %s', (_name, extra, line) => {
    const lines = metricsLines(view({ state: 'running', runner: 'llamacpp', ...extra }), 80);
    expect(lines[1]).toBe(line);
  });

  it.each([
    ['vllm', 'vLLM'],
    ['omlx', 'oMLX'],
    ['mtplx', 'MTPLX'],
    ['something-else', 'something-else'],
  ])('names runner %s as %s', (runner, label) => {
    const lines = metricsLines(view({ state: 'running', runner, modelId: 'm' }), 80);
    expect(lines[1]).toBe(`${label}  m`);
  });

  it.each([
    [90, 'last active 1m 30s ago'],
    [3600, 'last active 1h 0m 0s ago'],
    [0.4, 'last active just now'],
    [0, 'last active just now'],
  ])('shows last active %d s ago as %j', (seconds, line) => {
    const lines = metricsLines(view({ state: 'stopped', lastActiveAt: secondsAgo(seconds) }), 80);
    expect(lines.slice(0, 3)).toEqual(['stopped', 'engine —', line]);
  });

  it('shows a line per series: CPU, RAM, GPU util, GPU mem for a single GPU', () => {
    const stats: Stats = {
      state: 'running',
      uptimeSeconds: 1,
      cpu: { utilization: 25 },
      memory: { used: 8 * GIB, total: 32 * GIB },
      gpus: [{ index: 0, utilization: 80, memoryUsed: 12 * GIB, memoryTotal: 24 * GIB }],
    };
    const labels = metricsLines(view(stats), 100)
      .map((line) => /^(CPU|RAM|GPU(?: \d+)? (?:util|mem)) +[█░]/.exec(line)?.[1])
      .filter((label) => label !== undefined);
    expect(labels).toEqual(['CPU', 'RAM', 'GPU util', 'GPU mem']);
  });

  it('numbers each GPU when there are several', () => {
    const stats: Stats = {
      state: 'running',
      gpus: [
        { index: 1, utilization: 10 },
        { index: 0, utilization: 90 },
      ],
    };
    const labels = metricsLines(view(stats), 100)
      .map((line) => /^(CPU|RAM|GPU(?: \d+)? (?:util|mem)) +[█░]/.exec(line)?.[1])
      .filter((label) => label !== undefined);
    expect(labels).toEqual(['CPU', 'RAM', 'GPU 0 util', 'GPU 0 mem', 'GPU 1 util', 'GPU 1 mem']);
  });

  it('draws a gauge of the current value and a bar of the history, newest on the right', () => {
    // 59 columns with 3-letter labels leave a 10-cell gauge and a 20-cell history bar.
    const stats: Stats = {
      state: 'running',
      cpu: { utilization: 50 },
      memory: { used: 24 * GIB, total: 32 * GIB },
      history: [
        { t: 1, c: 0, m: 75 },
        { t: 2, c: 50, m: 75 },
        { t: 3, c: 100, m: 75 },
      ],
    };
    const lines = metricsLines(view(stats), 59);
    expect(seriesLine(lines, 'CPU')).toBe(`CPU  █████░░░░░ ${' '.repeat(17)}▁▅█  50%`);
    expect(seriesLine(lines, 'RAM')).toBe(
      `RAM  ████████░░ ${' '.repeat(17)}▇▇▇  24.0 GiB / 32.0 GiB`,
    );
  });

  it('max-pools a history longer than the bar, keeping the newest on the right', () => {
    const history = Array.from({ length: 100 }, (_, index) => ({
      t: index,
      c: index === 99 ? 100 : 0,
    }));
    const stats: Stats = { state: 'running', cpu: { utilization: 0 }, history };
    const line = seriesLine(metricsLines(view(stats), 59), 'CPU');
    expect(line).toBe(`CPU  ░░░░░░░░░░ ${'▁'.repeat(19)}█  0%`);
  });

  it('shows GPU details: utilisation, temperature, memory', () => {
    const stats: Stats = {
      state: 'running',
      gpus: [
        { index: 0, utilization: 80, temperature: 67, memoryUsed: 12 * GIB, memoryTotal: 24 * GIB },
      ],
      history: [{ t: 1, g: [{ i: 0, u: 40, m: 50 }] }],
    };
    const lines = metricsLines(view(stats), 64);
    // 8-letter labels at 64 columns: still a 10-cell gauge and a 20-cell bar.
    expect(seriesLine(lines, 'GPU util')).toBe(
      `GPU util  ████████░░ ${' '.repeat(19)}▄  80%  67°C`,
    );
    expect(seriesLine(lines, 'GPU mem')).toBe(
      `GPU mem   █████░░░░░ ${' '.repeat(19)}▅  12.0 GiB / 24.0 GiB`,
    );
  });

  it('shows a GPU known only from history, with an empty gauge', () => {
    const stats: Stats = { state: 'stopped', history: [{ t: 1, g: [{ i: 2, u: 100 }] }] };
    const lines = metricsLines(view(stats), 64);
    expect(seriesLine(lines, 'GPU util')).toBe(`GPU util  ░░░░░░░░░░ ${' '.repeat(19)}█  —`);
  });

  it('shows the counters, with — for what is absent', () => {
    const stats: Stats = {
      state: 'running',
      tokens: { running: 2, promptTokens: 1234, generationTokens: 5678901 },
    };
    const lines = metricsLines(view(stats), 80);
    expect(lines.at(-2)).toBe(
      'in flight 2   prompt tokens 1,234   generated 5,678,901   requests —',
    );
    const empty = metricsLines(view({ state: 'running', tokens: {} }), 80);
    expect(empty.at(-2)).toBe('in flight —   prompt tokens —   generated —   requests —');
    const unread = metricsLines(view({ state: 'running' }), 80);
    expect(unread.at(-2)).toBe('in flight —   prompt tokens —   generated —   requests —');
  });

  it("lists the errors on one row, after '! '", () => {
    const stats: Stats = {
      state: 'running',
      tokens: { requests: 3 },
      errors: ['engine metrics (http://x/metrics): HTTP 503', 'nvidia-smi: not found'],
    };
    const lines = metricsLines(view(stats), 80);
    expect(lines.slice(-2)).toEqual([
      'in flight —   prompt tokens —   generated —   requests 3',
      '! engine metrics (http://x/metrics): HTTP 503  ·  nvidia-smi: not found',
    ]);
  });

  it('puts it all in order', () => {
    expect(metricsLines(view(EVERY_READING, { staleSeconds: 9 }), 64)).toMatchInlineSnapshot(`
      [
        "running  (up 1m 30s)  ·  ready  ·  readings 9s old",
        "llama.cpp  qwen3-8b as chat",
        "last active 5s ago",
        "",
        "CPU       ███░░░░░░░                   ▁▃  25%",
        "RAM       ███░░░░░░░                   ▂▃  8.0 GiB / 32.0 GiB",
        "GPU util  ████████░░                   ▁▇  80%",
        "GPU mem   █████░░░░░                   ▅▅  12.0 GiB / 24.0 GiB",
        "",
        "in flight 1   prompt tokens 100   generated 200   requests 4",
        "! boom",
      ]
    `);
  });
});
