/**
 * Readiness at start-up speed: while the engine is not ready its health check is asked every
 * READY_POLL_MS (at most 500 ms), and once it is ready the fast checks stop (the ticks take over).
 */
import { describe, expect, it } from 'vitest';

import { ENGINES } from '../engines/engine-table.ts';
import { StateRecord, statusOf } from '../state/record.ts';
import { READY_POLL_MS, Sampler } from './sampler.ts';

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
