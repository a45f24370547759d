/**
 * Readiness at start-up speed: while the engine is not ready its health check is asked every
 * READY_POLL_MS (at most 500 ms), and once it is ready the fast checks stop (the ticks take over).
 */
import { describe, expect, it } from 'vitest';

import { ENGINES } from '../engines/engine-table.ts';
import { StateRecord, statusOf } from '../state/record.ts';
import { READY_POLL_MS, Sampler } from './sampler.ts';

/** An engine whose /metrics shows nothing in flight: a unit test opens no socket. */
const idleCounters = () => Promise.resolve({ tokens: { running: 0, counter: 0 }, busy: 0 });

describe('Sampler readiness watch', () => {
  it('asks every READY_POLL_MS until ready, reports it at once, then stops asking', async () => {
    expect(READY_POLL_MS).toBeLessThanOrEqual(500);
    const record = new StateRecord();
    record.started({ runner: 'llamacpp', startedAt: new Date(0), endpoint: { port: 1 } });
    const answers: ('ready' | 'not-ready')[] = ['not-ready', 'not-ready', 'not-ready', 'ready'];
    let checks = 0;
    const slept: number[] = [];
    const target = { engine: ENGINES.llamacpp, baseUrl: 'http://127.0.0.1:1' };
    const sampler: Sampler = new Sampler({
      record,
      intervalMs: 15_000,
      readEngineCounters: idleCounters,
      checkReadiness: () => {
        const answer = answers[checks] ?? 'ready';
        checks += 1;
        return Promise.resolve(answer);
      },
      sleep: (ms) => {
        slept.push(ms);
        // The status seen between checks is the freshest answer.
        expect(statusOf(record.snapshot(), new Date(0), 'dev').ready).toBe(
          checks >= 4 ? 'ready' : 'not-ready',
        );
        if (slept.length === 10) {
          sampler.end();
        }
        return Promise.resolve();
      },
    });
    // Watch directly (begin() would also start the tick timer and host reads).
    (sampler as unknown as { target: unknown }).target = target;
    await sampler.watchReadiness(target);
    expect(checks).toBe(4);
    expect(slept.every((ms) => ms === READY_POLL_MS)).toBe(true);
    expect(record.snapshot().ready).toBe('ready');
  });

  it('polls nothing for an engine without a health-check convention', async () => {
    let checks = 0;
    const sampler = new Sampler({
      record: new StateRecord(),
      intervalMs: 15_000,
      readEngineCounters: idleCounters,
      checkReadiness: () => {
        checks += 1;
        return Promise.resolve(undefined);
      },
    });
    const { health: _none, ...engine } = ENGINES.omlx;
    const target = { engine, baseUrl: 'http://127.0.0.1:1' };
    (sampler as unknown as { target: unknown }).target = target;
    await sampler.watchReadiness(target);
    expect(checks).toBe(0);
  });
});

describe('Sampler engine slots (docs/design.md D25)', () => {
  const run = { runner: 'llamacpp', startedAt: new Date(0), endpoint: { port: 1 } };

  it('asks for the slots when the engine turns ready, before reporting it ready', async () => {
    const record = new StateRecord();
    record.started(run);
    const answers: ('ready' | 'not-ready')[] = ['not-ready', 'ready'];
    const asked: string[] = [];
    const sampler: Sampler = new Sampler({
      record,
      intervalMs: 15_000,
      readEngineCounters: idleCounters,
      checkReadiness: () => Promise.resolve(answers.shift() ?? 'ready'),
      readEngineSlots: (path, baseUrl) => {
        asked.push(`${baseUrl}${path}`);
        expect(record.snapshot().ready).not.toBe('ready');
        return Promise.resolve(2);
      },
      sleep: () => {
        if (answers.length === 0) {
          sampler.end();
        }
        return Promise.resolve();
      },
    });
    const target = { engine: ENGINES.llamacpp, baseUrl: 'http://127.0.0.1:1' };
    (sampler as unknown as { target: unknown }).target = target;
    await sampler.watchReadiness(target);
    expect(asked).toEqual(['http://127.0.0.1:1/props']);
    expect(statusOf(record.snapshot(), new Date(0), 'dev')).toMatchObject({
      ready: 'ready',
      slots: 2,
    });
  });

  it('asks again after a failed read, and once per engine start after a good one', async () => {
    const record = new StateRecord();
    record.started(run);
    const replies = [undefined, 3, 5];
    let asked = 0;
    let sleeps = 0;
    const sampler: Sampler = new Sampler({
      record,
      intervalMs: 15_000,
      readEngineCounters: idleCounters,
      checkReadiness: () => Promise.resolve('ready'),
      readEngineSlots: () => Promise.resolve(replies[asked++]),
      sleep: () => {
        sleeps += 1;
        // Turned not-ready again, so the watch asks the health check once more.
        record.setReady('not-ready');
        if (sleeps % 3 === 0) {
          sampler.end();
        }
        return Promise.resolve();
      },
    });
    const watch = async (): Promise<void> => {
      const target = { engine: ENGINES.llamacpp, baseUrl: 'http://127.0.0.1:1' };
      (sampler as unknown as { target: unknown }).target = target;
      await sampler.watchReadiness(target);
    };
    await watch();
    expect(asked).toBe(2);
    expect(record.snapshot().engineSlots).toBe(3);
    record.started(run);
    await watch();
    expect(asked).toBe(3);
    expect(record.snapshot().engineSlots).toBe(5);
  });

  it('asks nothing of an engine that does not report its slots', async () => {
    let asked = 0;
    const record = new StateRecord();
    record.started({ ...run, runner: 'vllm' });
    const sampler: Sampler = new Sampler({
      record,
      intervalMs: 15_000,
      readEngineCounters: idleCounters,
      checkReadiness: () => Promise.resolve('ready'),
      readEngineSlots: () => {
        asked += 1;
        return Promise.resolve(1);
      },
      sleep: () => {
        sampler.end();
        return Promise.resolve();
      },
    });
    const target = { engine: ENGINES.vllm, baseUrl: 'http://127.0.0.1:1' };
    (sampler as unknown as { target: unknown }).target = target;
    await sampler.watchReadiness(target);
    expect(asked).toBe(0);
    expect(record.snapshot().ready).toBe('ready');
  });
});

describe('Sampler busy at readiness (docs/design.md D25)', () => {
  it("reads the counters when the engine turns ready, so a ready engine's busy is known", async () => {
    const record = new StateRecord();
    record.started({ runner: 'llamacpp', startedAt: new Date(0), endpoint: { port: 1 } });
    // The first tick ran as the engine started, before it answered: busy unknown.
    record.observeTokens(undefined, 'engine metrics: connection refused', new Date(0));
    const answers: ('ready' | 'not-ready')[] = ['not-ready', 'not-ready', 'ready'];
    const asked: number[] = [];
    const sampler: Sampler = new Sampler({
      record,
      intervalMs: 15_000,
      now: () => new Date(1_000),
      checkReadiness: () => Promise.resolve(answers.shift() ?? 'ready'),
      readEngineSlots: () => Promise.resolve(4),
      readEngineCounters: (_target, _key, timeoutMs) => {
        // None given (the tick's 5 s default) reads as NaN, which fails the bound below.
        asked.push(timeoutMs ?? Number.NaN);
        expect(record.snapshot().ready).not.toBe('ready');
        return Promise.resolve({ tokens: { running: 0, counter: 0 }, busy: 0 });
      },
      sleep: () => {
        if (answers.length === 0) {
          sampler.end();
        }
        return Promise.resolve();
      },
    });
    const target = { engine: ENGINES.llamacpp, baseUrl: 'http://127.0.0.1:1' };
    (sampler as unknown as { target: unknown }).target = target;
    await sampler.watchReadiness(target);
    // Once, at the turn to ready, within the readiness poll's own bound.
    expect(asked).toHaveLength(1);
    expect(asked.every((ms) => ms <= 1_000)).toBe(true);
    const status = statusOf(record.snapshot(), new Date(1_000), 'dev');
    expect(status).toMatchObject({ ready: 'ready', slots: 4, busy: 0 });
    expect(record.snapshot().tokensError).toBeUndefined();
  });
});

describe('Sampler counter readings in order (docs/design.md D25)', () => {
  it("never lets a tick's older counter reading overwrite the newer one read at readiness", async () => {
    const record = new StateRecord();
    record.started({ runner: 'llamacpp', startedAt: new Date(0), endpoint: { port: 1 } });
    // The tick reads while the engine still loads (503); the readiness watch reads once it is up.
    const counters = [
      { error: 'engine metrics: HTTP 503' },
      { tokens: { running: 0, counter: 0 }, busy: 0 },
    ];
    const readiness: ('ready' | 'not-ready')[] = ['not-ready', 'ready'];
    let gpusRead: (value: { gpus: [] }) => void = () => undefined;
    let watching: () => void = () => undefined;
    const idle = new Promise<void>((resolve) => {
      watching = resolve;
    });
    const sampler = new Sampler({
      record,
      intervalMs: 15_000,
      // The tick's host read is slow, so it lands after the watch's counters.
      readGpus: () =>
        new Promise((resolve) => {
          gpusRead = resolve;
        }),
      checkReadiness: () => Promise.resolve(readiness.shift() ?? 'ready'),
      readEngineSlots: () => Promise.resolve(4),
      readEngineCounters: () => Promise.resolve(counters.shift() ?? {}),
      sleep: () => {
        watching();
        return new Promise<void>(() => undefined);
      },
    });
    const target = { engine: ENGINES.llamacpp, baseUrl: 'http://127.0.0.1:1' };
    (sampler as unknown as { target: unknown }).target = target;
    const tick = sampler.tick();
    void sampler.watchReadiness(target);
    await idle;
    expect(record.snapshot()).toMatchObject({ ready: 'ready', busy: 0 });
    gpusRead({ gpus: [] });
    await tick;
    expect(statusOf(record.snapshot(), new Date(0), 'dev')).toMatchObject({
      ready: 'ready',
      slots: 4,
      busy: 0,
    });
    sampler.end();
  });
});
