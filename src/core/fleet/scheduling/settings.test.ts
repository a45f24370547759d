/**
 * The scheduler's settings resolved from its options: defaults for what is left out, and a node's
 * own `scaleOut` and `idleStop` over the fleet-wide ones (docs/design.md D25, D26), `off` included.
 */
import { describe, expect, it } from 'vitest';

import {
  QUEUE_DEFAULTS,
  queueLimitsFor,
  schedulerSettings,
  WAKE_TIMEOUT_DEFAULT_MS,
} from './settings.ts';

describe('schedulerSettings', () => {
  it('fills every default', () => {
    expect(schedulerSettings({ nodes: [{ name: 'a' }] })).toEqual({
      nodes: [{ name: 'a', keepWarm: false, scaleOut: false }],
      prefer: 'idle',
      affinity: true,
      queue: QUEUE_DEFAULTS,
      queueByModel: new Map(),
      groups: new Map(),
      wakeTimeoutMs: WAKE_TIMEOUT_DEFAULT_MS,
    });
  });

  it('gives each node the fleet-wide idle stop unless it sets its own, off included', () => {
    const settings = schedulerSettings({
      idleStopMs: 300_000,
      nodes: [{ name: 'a' }, { name: 'b', idleStopMs: 60_000 }, { name: 'c', idleStopMs: 'off' }],
    });
    expect(settings.nodes.map((node) => node.idleStopMs)).toEqual([300_000, 60_000, undefined]);
    expect(Object.hasOwn(settings.nodes[2] ?? {}, 'idleStopMs')).toBe(false);
  });

  it('reads a fleet-wide idle stop of off as off, a node’s own duration still applying', () => {
    const settings = schedulerSettings({
      idleStopMs: 'off',
      nodes: [{ name: 'a' }, { name: 'b', idleStopMs: 60_000 }],
    });
    expect(settings.nodes.map((node) => node.idleStopMs)).toEqual([undefined, 60_000]);
  });

  it('gives each node the fleet-wide scaleOut unless it sets its own', () => {
    const settings = schedulerSettings({
      scaleOut: true,
      nodes: [{ name: 'a' }, { name: 'b', scaleOut: false }],
    });
    expect(settings.nodes.map((node) => node.scaleOut)).toEqual([true, false]);
  });

  it('falls back key by key from a model’s queue limits to the fleet-wide ones', () => {
    const settings = schedulerSettings({
      nodes: [{ name: 'a' }],
      queue: { max: 4 },
      queueByModel: new Map([['m', { timeoutMs: 5_000 }]]),
    });
    expect(queueLimitsFor(settings, 'm')).toEqual({ max: 4, timeoutMs: 5_000 });
    expect(queueLimitsFor(settings, 'other')).toEqual({
      max: 4,
      timeoutMs: QUEUE_DEFAULTS.timeoutMs,
    });
  });
});
