/**
 * The scheduler's options from a parsed fleet file (docs/design.md D25, D26): fleet-wide settings
 * and a node's own, per-model queue limits, and groups with their defaults filled.
 */
import { describe, expect, it } from 'vitest';

import { lines, parsed } from '../../../../test/support/project-files/fleet-text.ts';
import { GROUP_DEFAULTS, QUEUE_DEFAULTS, schedulerSettings } from './settings.ts';
import { schedulerOptionsOf } from './settings-of-fleet.ts';

const WAKE_TIMEOUT = 120_000;

describe('schedulerOptionsOf', () => {
  it('carries a file with no scheduling keys as the defaults, with the wake timeout', () => {
    const settings = schedulerSettings(
      schedulerOptionsOf(parsed(lines('nodes:', '  - {name: a, host: h}')), WAKE_TIMEOUT),
    );
    expect(settings).toEqual({
      nodes: [{ name: 'a', keepWarm: false, scaleOut: false }],
      prefer: 'idle',
      affinity: true,
      queue: QUEUE_DEFAULTS,
      queueByModel: new Map(),
      groups: new Map(),
      wakeTimeoutMs: WAKE_TIMEOUT,
    });
  });

  it('resolves each node’s own settings over the fleet-wide ones', () => {
    const fleet = parsed(
      lines(
        'prefer: active',
        'affinity: off',
        'scaleOut: on',
        'idleStop: 10m',
        'groups: {gpu: {max: 1}}',
        'nodes:',
        '  - {name: a, host: h}',
        '  - {name: b, host: h, scaleOut: off, idleStop: 1m, group: gpu}',
        '  - {name: c, host: h, idleStop: off, keepWarm: on, group: gpu}',
      ),
    );
    const settings = schedulerSettings(schedulerOptionsOf(fleet, WAKE_TIMEOUT));
    expect(settings.prefer).toBe('active');
    expect(settings.affinity).toBe(false);
    expect(settings.nodes).toEqual([
      { name: 'a', idleStopMs: 600_000, keepWarm: false, scaleOut: true },
      { name: 'b', group: 'gpu', idleStopMs: 60_000, keepWarm: false, scaleOut: false },
      { name: 'c', group: 'gpu', keepWarm: true, scaleOut: true },
    ]);
  });

  it('keeps the queue’s fleet-wide limits and each model’s own, key by key', () => {
    const fleet = parsed(
      lines(
        'queue:',
        '  max: 16',
        '  models:',
        '    big: {max: 2, timeout: 10m}',
        '    small: {timeout: 30s}',
        'nodes:',
        '  - {name: a, host: h}',
      ),
    );
    const options = schedulerOptionsOf(fleet, WAKE_TIMEOUT);
    expect(options.queue).toEqual({ max: 16 });
    expect(options.queueByModel).toEqual(
      new Map([
        ['big', { max: 2, timeoutMs: 600_000 }],
        ['small', { timeoutMs: 30_000 }],
      ]),
    );
    expect(schedulerSettings(options).queue).toEqual({
      max: 16,
      timeoutMs: QUEUE_DEFAULTS.timeoutMs,
    });
  });

  it('fills a group’s defaults for what it leaves out', () => {
    const fleet = parsed(
      lines(
        'groups:',
        '  gpu: {}',
        '  pair: {max: 2, minResidency: 5m}',
        'nodes:',
        '  - {name: a, host: h, group: gpu}',
      ),
    );
    expect(schedulerOptionsOf(fleet, WAKE_TIMEOUT).groups).toEqual(
      new Map([
        ['gpu', GROUP_DEFAULTS],
        ['pair', { max: 2, minResidencyMs: 300_000 }],
      ]),
    );
    expect(GROUP_DEFAULTS).toEqual({ max: 1, minResidencyMs: 30_000 });
  });
});
