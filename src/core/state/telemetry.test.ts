/**
 * Activity (spec §3), history (spec §2.4, §8) and the metrics reply in every state (spec §4.1
 * rule 6), through the one state record.
 */
import { describe, expect, it } from 'vitest';

import { isActivity } from './activity.ts';
import {
  addSample,
  HISTORY_WINDOW_SECONDS,
  type HistorySample,
  RELAY_BUDGET_BYTES,
} from './history.ts';
import { type EngineRun, StateRecord, statsOf } from './record.ts';

const start = new Date('2026-11-22T10:00:00.000Z');
const at = (seconds: number): Date => new Date(start.getTime() + seconds * 1000);
const run: EngineRun = { runner: 'llamacpp', startedAt: start, endpoint: { port: 8080 } };

describe('activity rule (spec §3)', () => {
  it('counts requests in flight', () => {
    expect(isActivity({ running: 1, counter: 5 }, 5)).toBe(true);
  });

  it('counts a counter that moved since the previous sample, either way', () => {
    expect(isActivity({ running: 0, counter: 6 }, 5)).toBe(true);
    expect(isActivity({ running: 0, counter: 0 }, 5)).toBe(true);
  });

  it('does not count an unchanged counter, nor the first sample (the baseline)', () => {
    expect(isActivity({ running: 0, counter: 5 }, 5)).toBe(false);
    expect(isActivity({ running: 0, counter: 5 }, undefined)).toBe(false);
  });
});

describe('the record with readings', () => {
  it('moves lastActiveAt on activity only', () => {
    const record = new StateRecord();
    record.started(run);
    record.observeTokens({ running: 0, counter: 10 }, undefined, at(15));
    expect(record.snapshot().lastActiveAt).toEqual(start);
    record.observeTokens({ running: 0, counter: 10 }, undefined, at(30));
    expect(record.snapshot().lastActiveAt).toEqual(start);
    record.observeTokens({ running: 0, counter: 14 }, undefined, at(45));
    expect(record.snapshot().lastActiveAt).toEqual(at(45));
    record.observeTokens({ running: 2, counter: 14 }, undefined, at(60));
    expect(record.snapshot().lastActiveAt).toEqual(at(60));
  });

  it('keeps the last counters when a read fails and reports the failure in errors', () => {
    const record = new StateRecord();
    record.started(run);
    record.observeTokens({ running: 0, counter: 3 }, undefined, at(1));
    record.observeTokens(undefined, 'engine metrics (http://x/metrics): HTTP 503', at(2));
    const stats = statsOf(record.snapshot(), at(2));
    expect(stats.tokens).toEqual({ running: 0, counter: 3 });
    expect(stats.errors).toEqual(['engine metrics (http://x/metrics): HTTP 503']);
  });

  it('reports live readings and history while running', () => {
    const record = new StateRecord();
    record.started(run);
    record.observeTokens({ running: 1, counter: 3 }, undefined, at(1));
    record.observeHost(
      {
        cpu: { utilization: 12.5 },
        memory: { total: 1000, used: 250 },
        gpus: [{ index: 0, utilization: 40, memoryUsed: 10, memoryTotal: 40 }, { index: 1 }],
        errors: ['gpu: x'],
      },
      at(1),
    );
    expect(statsOf(record.snapshot(), at(1))).toMatchObject({
      state: 'running',
      tokens: { running: 1, counter: 3 },
      cpu: { utilization: 12.5 },
      memory: { total: 1000, used: 250 },
      gpus: [{ index: 0 }, { index: 1 }],
      history: [
        {
          t: Math.floor(at(1).getTime() / 1000),
          c: 12.5,
          m: 25,
          g: [
            { i: 0, u: 40, m: 25 },
            { i: 1, u: 0 },
          ],
        },
      ],
      errors: ['gpu: x'],
    });
  });

  it('after a stop: no tokens, no GPU or host readings, no errors; lastActiveAt and history stay', () => {
    const record = new StateRecord();
    record.started(run);
    record.observeTokens({ running: 1, counter: 3 }, undefined, at(1));
    record.observeHost(
      { cpu: { utilization: 5 }, gpus: [{ index: 0, utilization: 1 }], errors: ['gpu: x'] },
      at(1),
    );
    record.ended('stopped');
    const stats = statsOf(record.snapshot(), at(5));
    expect(Object.keys(stats).sort()).toEqual([
      'history',
      'idleSeconds',
      'lastActiveAt',
      'runner',
      'state',
      'uptimeSeconds',
    ]);
    expect(stats.history).toHaveLength(1);
  });

  it('clears history when the next engine starts', () => {
    const record = new StateRecord();
    record.started(run);
    record.observeHost({ cpu: { utilization: 5 }, errors: [] }, at(1));
    record.ended('stopped');
    record.started({ ...run, startedAt: at(100) });
    expect(statsOf(record.snapshot(), at(100))).not.toHaveProperty('history');
  });

  it('skips a tick with no figures in history', () => {
    const record = new StateRecord();
    record.started(run);
    record.observeHost({ errors: [] }, at(1));
    expect(record.snapshot().history).toEqual([]);
  });

  it('ignores readings while not running', () => {
    const record = new StateRecord();
    record.observeTokens({ running: 3 }, undefined, at(1));
    record.observeHost({ cpu: { utilization: 1 }, errors: [] }, at(1));
    expect(statsOf(record.snapshot(), at(1))).toEqual({ state: 'idle' });
  });

  it('never reports retainUntil on a local node', () => {
    const record = new StateRecord();
    record.started(run);
    expect(statsOf(record.snapshot(), at(1))).not.toHaveProperty('retainUntil');
  });
});

describe('history window and relay budget (spec §8)', () => {
  const eightGpus = Array.from({ length: 8 }, (_, index) => ({
    index,
    name: 'NVIDIA H100 80GB HBM3',
    utilization: 100,
    memoryUsed: 80_000 * 1024 * 1024,
    memoryTotal: 81_559 * 1024 * 1024,
    temperature: 85,
  }));
  const sample = (t: number): HistorySample => ({
    t,
    c: 99.9,
    m: 99.9,
    g: eightGpus.map((gpu) => ({ i: gpu.index, u: 100, m: 99.9 })),
  });

  it('keeps samples oldest first within the last 10 minutes of the newest', () => {
    let history: HistorySample[] = [];
    for (let t = 0; t <= 1200; t += 60) {
      history = addSample(history, { t, c: 1 }, {});
    }
    expect(history.map((entry) => entry.t)).toEqual([
      600, 660, 720, 780, 840, 900, 960, 1020, 1080, 1140, 1200,
    ]);
    expect((history.at(-1)?.t ?? 0) - (history[0]?.t ?? 0)).toBeLessThanOrEqual(
      HISTORY_WINDOW_SECONDS,
    );
  });

  it('fits a full window plus the current reading in 4 KB with 8 GPUs reporting', () => {
    const current = {
      gpus: eightGpus,
      cpu: { utilization: 99.9 },
      memory: { total: 1e12, used: 9.99e11 },
    };
    let history: HistorySample[] = [];
    for (let t = 1_795_307_570; t < 1_795_307_570 + HISTORY_WINDOW_SECONDS + 300; t += 15) {
      history = addSample(history, sample(t), current);
    }
    const relayed = JSON.stringify({ history, ...current });
    expect(relayed.length).toBeLessThanOrEqual(RELAY_BUDGET_BYTES);
    expect(history.length).toBeGreaterThan(5);
    // The newest samples are the ones kept.
    expect(history.at(-1)?.t).toBe(1_795_307_570 + HISTORY_WINDOW_SECONDS + 285);
  });

  it('keeps forty samples plus the reading within 4 KB for a single-GPU host', () => {
    const current = {
      gpus: eightGpus.slice(0, 1),
      cpu: { utilization: 50 },
      memory: { total: 1e11, used: 5e10 },
    };
    let history: HistorySample[] = [];
    for (let t = 0; t < 40 * 15; t += 15) {
      history = addSample(
        history,
        { t: 1_795_307_570 + t, c: 50.5, m: 50.5, g: [{ i: 0, u: 50, m: 50.5 }] },
        current,
      );
    }
    expect(history).toHaveLength(40);
    expect(JSON.stringify({ history, ...current }).length).toBeLessThanOrEqual(RELAY_BUDGET_BYTES);
  });
});
