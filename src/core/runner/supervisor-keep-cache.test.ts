/**
 * keepCache in the supervisor (docs/design.md D32), with a fake engine process and a fake slot
 * client: the engine gets `--slot-save-path`, a graceful stop saves every slot first and a forced
 * one saves nothing, and the next start restores them before the record says running.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  type FakeSlotEngine,
  fakeSlotEngine,
} from '../../../test/support/fakes/fake-slot-engine.ts';
import type { EngineSpec } from '../engines/engine-spec.ts';
import { createLogger } from '../logger.ts';
import { StateRecord, statusOf } from '../state/record.ts';
import type { EngineExit, EngineProcess, EngineProcessOptions } from './engine-process.ts';
import { Supervisor } from './supervisor.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-keep-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An engine that exits when stopped; its slots live in `slots` across restarts. */
function harness(keepCache: boolean) {
  const slotDir = join(dir, 'slots');
  let slots: FakeSlotEngine | undefined;
  const started: EngineProcessOptions[] = [];
  const record = new StateRecord();
  const statesAtRestore: string[] = [];
  let pid = 100;
  const startEngine = (options: EngineProcessOptions): Promise<EngineProcess> => {
    started.push(options);
    let exit: (value: EngineExit) => void = () => undefined;
    const exited = new Promise<EngineExit>((resolve) => {
      exit = resolve;
    });
    pid += 1;
    return Promise.resolve({
      pid,
      watchdogPid: pid + 1000,
      startedAt: new Date(),
      exited,
      stop: () => {
        exit({ code: 0, signal: null });
        return Promise.resolve('terminated' as const);
      },
    });
  };
  const supervisor = new Supervisor(
    {
      record,
      logger: createLogger('error', { write: () => undefined }),
      output: { kind: 'forward' },
      env: { PATH: '/opt/engines' },
      startWindowMs: 500,
      stopGraceMs: 1000,
    },
    {
      now: () => new Date(),
      startEngine,
      locateBinary: () => '/opt/engines/llama-server',
      runStop: () => Promise.resolve({ ok: true }),
      answers: () => Promise.resolve(true),
      pidRecord: {
        write: () => Promise.resolve(),
        clear: () => Promise.resolve(),
        startTime: () => undefined,
      },
      slotCache: () => {
        // A fresh engine each start: empty slots until restored.
        slots = fakeSlotEngine(slotDir, [0, 0]);
        const engine = slots;
        const restore = engine.restore.bind(engine);
        engine.restore = (slot, filename, signal) => {
          statesAtRestore.push(record.snapshot().state);
          return restore(slot, filename, signal);
        };
        return engine;
      },
    },
  );
  const spec: EngineSpec = {
    runner: 'llamacpp',
    model: 'org/tiny-GGUF',
    ...(keepCache ? { keepCache: { dir: slotDir, maxBytes: 1024 ** 3 } } : {}),
  };
  return {
    supervisor,
    record,
    started,
    statesAtRestore,
    slotDir,
    spec,
    slots: () => slots,
  };
}

describe('Supervisor keepCache', () => {
  it('saves the slots on a graceful stop and restores them before the next start is running', async () => {
    const h = harness(true);
    await h.supervisor.start({ spec: h.spec });
    expect(h.started[0]?.args).toEqual(expect.arrayContaining(['--slot-save-path', h.slotDir]));
    h.slots()?.slots.splice(0, 2, 1051, 67);
    await h.supervisor.stop();
    expect(h.record.snapshot().lifetime.slotSaves).toBe(2);

    await h.supervisor.start({ spec: h.spec });
    expect(h.slots()?.slots).toEqual([1051, 67]);
    expect(h.statesAtRestore).toEqual(['stopped', 'stopped']);
    const status = statusOf(h.record.snapshot(), new Date(), 'test');
    expect(status.lastCacheRestore).toMatchObject({ slots: 2, tokens: 1118 });
    expect(h.record.snapshot().lifetime.slotRestores).toBe(2);
  });

  it('saves nothing on a forced stop', async () => {
    const h = harness(true);
    await h.supervisor.start({ spec: h.spec });
    h.slots()?.slots.splice(0, 2, 500, 0);
    await h.supervisor.stop({ force: true });
    expect(h.slots()?.calls.filter((call) => call.startsWith('save'))).toEqual([]);
    expect(await readdir(h.slotDir)).toEqual([]);
    expect(h.record.snapshot().lifetime.slotSaves ?? 0).toBe(0);
  });

  it('leaves an engine without keepCache alone', async () => {
    const h = harness(false);
    await h.supervisor.start({ spec: h.spec });
    expect(h.started[0]?.args).not.toContain('--slot-save-path');
    await h.supervisor.stop();
    expect(h.slots()?.calls ?? []).toEqual([]);
    expect(statusOf(h.record.snapshot(), new Date(), 'test')).not.toHaveProperty(
      'lastCacheRestore',
    );
  });
});
