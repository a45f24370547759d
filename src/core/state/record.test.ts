import { describe, expect, it } from 'vitest';

import { type EngineRun, StateRecord, statsOf, statusOf } from './record.ts';

const start = new Date('2026-11-22T10:00:00.000Z');
const later = (seconds: number): Date => new Date(start.getTime() + seconds * 1000);
const run: EngineRun = {
  runner: 'llamacpp',
  model: 'org/m',
  servedName: 'm',
  startedAt: start,
  endpoint: { port: 8080, loopbackOnly: true, requiresKey: false },
  logPath: '/c/daemon/engine.log',
};

describe('the state record (spec §2.1, §2.4, §3)', () => {
  it('reports only state and version before anything ran (no nulls, no zeros)', () => {
    const record = new StateRecord();
    expect(statusOf(record.snapshot(), start, 'dev')).toEqual({ state: 'idle', version: 'dev' });
    expect(statsOf(record.snapshot(), start)).toEqual({ state: 'idle' });
  });

  it('reports a running engine with uptime, endpoint and lastActiveAt at the start time', () => {
    const record = new StateRecord();
    record.started(run);
    expect(statusOf(record.snapshot(), later(90), '1.2.0')).toEqual({
      state: 'running',
      runner: 'llamacpp',
      model: 'org/m',
      servedName: 'm',
      uptimeSeconds: 90,
      logPath: '/c/daemon/engine.log',
      lastActiveAt: '2026-11-22T10:00:00.000Z',
      idleSeconds: 90,
      engine: { port: 8080, loopbackOnly: true, requiresKey: false },
      version: '1.2.0',
    });
  });

  it('omits idleSeconds at zero (spec §2.4)', () => {
    const record = new StateRecord();
    record.started(run);
    expect(statusOf(record.snapshot(), start, 'dev')).not.toHaveProperty('idleSeconds');
  });

  it('keeps lastActiveAt after a stop, drops the endpoint, readiness and uptime', () => {
    const record = new StateRecord();
    record.started(run);
    record.setReady('ready');
    expect(statusOf(record.snapshot(), later(1), 'dev').ready).toBe('ready');
    record.ended('stopped');
    const status = statusOf(record.snapshot(), later(5), 'dev');
    expect(status).toMatchObject({
      state: 'stopped',
      uptimeSeconds: 0,
      lastActiveAt: start.toISOString(),
      idleSeconds: 5,
    });
    expect(status).not.toHaveProperty('engine');
    expect(status).not.toHaveProperty('ready');
    expect(statsOf(record.snapshot(), later(5))).toMatchObject({
      state: 'stopped',
      lastActiveAt: start.toISOString(),
    });
  });

  it('records a crash the same way, and ignores readiness when not running', () => {
    const record = new StateRecord();
    record.started(run);
    record.ended('crashed');
    record.setReady('ready');
    expect(statusOf(record.snapshot(), later(1), 'dev')).not.toHaveProperty('ready');
    expect(record.snapshot().state).toBe('crashed');
  });

  it('only ever moves lastActiveAt forward', () => {
    const record = new StateRecord();
    record.started(run);
    record.active(later(30));
    record.active(later(10));
    expect(record.snapshot().lastActiveAt).toEqual(later(30));
  });

  it('answers status and metrics from the same record', () => {
    const record = new StateRecord();
    record.started(run);
    const status = statusOf(record.snapshot(), later(3), 'dev');
    const stats = statsOf(record.snapshot(), later(3));
    expect(stats.servedName).toBe(status.servedName);
    expect(stats.lastActiveAt).toBe(status.lastActiveAt);
    expect(stats.idleSeconds).toBe(status.idleSeconds);
    expect(stats.modelId).toBe(status.model);
  });
});

describe('lastExit (docs/design.md D23)', () => {
  const run = { runner: 'llamacpp', startedAt: new Date(0), endpoint: { port: 1 } };
  const lastExit = { exitCode: 3, at: '2026-11-23T10:00:00.000Z', logTail: ['boom'] };

  it('is reported after a crash and cleared by the next start', () => {
    const record = new StateRecord();
    record.started(run);
    record.ended('crashed', lastExit);
    expect(statusOf(record.snapshot(), new Date(0), 'dev').lastExit).toEqual(lastExit);
    record.started(run);
    expect(statusOf(record.snapshot(), new Date(0), 'dev')).not.toHaveProperty('lastExit');
  });

  it('is absent after a requested stop', () => {
    const record = new StateRecord();
    record.started(run);
    record.ended('stopped');
    expect(statusOf(record.snapshot(), new Date(0), 'dev')).not.toHaveProperty('lastExit');
  });

  it('counts starts and crashes for the life of the process and keeps the last exit code', () => {
    const record = new StateRecord();
    expect(record.snapshot().lifetime).toEqual({ starts: 0, crashes: 0 });
    record.started(run);
    record.ended('crashed', { exitCode: 3, at: start.toISOString(), logTail: [] });
    expect(record.snapshot().lifetime).toEqual({ starts: 1, crashes: 1, lastExitCode: 3 });
    record.started(run);
    record.ended('stopped', undefined, 0);
    expect(record.snapshot().lifetime).toEqual({ starts: 2, crashes: 1, lastExitCode: 0 });
    record.started(run);
    // Ended by a signal: no exit code, so none is reported.
    record.ended('crashed', { signal: 'SIGKILL', at: start.toISOString(), logTail: [] });
    expect(record.snapshot().lifetime).toEqual({ starts: 3, crashes: 2 });
  });
});

describe('slots and busy (docs/design.md D25)', () => {
  const stated: EngineRun = { ...run, slots: 2 };

  it("reports the engine's own slots over the stated ones, and busy from the last scrape", () => {
    const record = new StateRecord();
    record.started(stated);
    expect(statusOf(record.snapshot(), start, 'dev')).toMatchObject({ slots: 2 });
    expect(statusOf(record.snapshot(), start, 'dev')).not.toHaveProperty('busy');
    record.setEngineSlots(4);
    record.observeTokens({ running: 3, counter: 1 }, undefined, later(1), 1);
    expect(statusOf(record.snapshot(), later(1), 'dev')).toMatchObject({ slots: 4, busy: 1 });
    expect(statsOf(record.snapshot(), later(1))).toMatchObject({ slots: 4, busy: 1 });
  });

  it('leaves busy unknown after a scrape without it, and both absent when unknown', () => {
    const record = new StateRecord();
    record.started(run);
    record.observeTokens({ counter: 1 }, undefined, later(1), 0);
    expect(statusOf(record.snapshot(), later(1), 'dev').busy).toBe(0);
    record.observeTokens(undefined, 'engine metrics: HTTP 503', later(2));
    const status = statusOf(record.snapshot(), later(2), 'dev');
    expect(status).not.toHaveProperty('busy');
    expect(status).not.toHaveProperty('slots');
  });

  it('reports neither once the engine ended, and forgets the engine slots at the next start', () => {
    const record = new StateRecord();
    record.started(stated);
    record.setEngineSlots(4);
    record.observeTokens({ counter: 1 }, undefined, later(1), 1);
    record.ended('stopped');
    for (const reply of [
      statusOf(record.snapshot(), later(2), 'dev'),
      statsOf(record.snapshot(), later(2)),
    ]) {
      expect(reply).not.toHaveProperty('slots');
      expect(reply).not.toHaveProperty('busy');
    }
    record.setEngineSlots(8);
    record.started(stated);
    expect(statusOf(record.snapshot(), later(3), 'dev')).toMatchObject({ slots: 2 });
  });
});
