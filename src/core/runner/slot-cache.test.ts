/**
 * The keepCache policy (docs/design.md D32) against a fake engine writing into a real temp dir:
 * what a save leaves, that a restore never loads another model's cache, that a file the engine
 * refuses is skipped with a warning, that the size bound drops the oldest files first, and that a
 * failed or hanging save never throws.
 */
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { fakeSlotEngine, TINY_IDENTITY } from '../../../test/support/fakes/fake-slot-engine.ts';
import { createLogger } from '../logger.ts';
import { evictOldest, restoreSlots, saveSlots } from './slot-cache.ts';

let dir: string;
let lines: string[];
const logger = () => createLogger('debug', { write: (line) => lines.push(line) });
const GIB = 1024 ** 3;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-slots-'));
  lines = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const warnings = () => lines.filter((line) => /warn/iu.test(line));

describe('saveSlots', () => {
  it('saves each slot holding tokens under a name tied to the model, with its identity beside it', async () => {
    const engine = fakeSlotEngine(dir, [1200, 0]);
    const saved = await saveSlots(
      { client: engine, cache: { dir, maxBytes: GIB } },
      logger(),
      1000,
    );
    expect(saved).toBe(1);
    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^[0-9a-f]{16}-slot0\.bin$/u);
    expect(files[1]).toMatch(/^[0-9a-f]{16}-slot0\.json$/u);
    const meta = JSON.parse(await readFile(join(dir, files[1] ?? ''), 'utf8')) as object;
    expect(meta).toMatchObject({ ...TINY_IDENTITY, slot: 0, tokens: 1200 });
    // The engine wrote under a temp name; only the rename made the file visible.
    expect(engine.calls).toContain(`save 0 ${files[0]}.part`);
    // The log says what the save cost: the bytes and the engine's own time.
    const { size } = await stat(join(dir, files[0] ?? ''));
    expect(lines.join('\n')).toMatch(
      new RegExp(`engine slots saved slots=1 bytes=${size} ms=1`, 'u'),
    );
  });

  it('never throws: a failed slot is a warning and the others are still saved', async () => {
    const engine = fakeSlotEngine(dir, [300, 400]);
    engine.failSave = { slot: 0, how: 'error' };
    const saved = await saveSlots(
      { client: engine, cache: { dir, maxBytes: GIB } },
      logger(),
      1000,
    );
    expect(saved).toBe(1);
    expect(warnings().join('\n')).toMatch(/could not save an engine slot.*failed to save/u);
    expect((await readdir(dir)).filter((name) => name.endsWith('.part'))).toEqual([]);
  });

  it('gives up on a save that hangs once the limit passes', async () => {
    const engine = fakeSlotEngine(dir, [300, 400]);
    engine.failSave = { slot: 0, how: 'hang' };
    const saved = await saveSlots({ client: engine, cache: { dir, maxBytes: GIB } }, logger(), 20);
    expect(saved).toBe(0);
    expect(warnings().join('\n')).toMatch(/cut off/u);
  });
});

describe('restoreSlots', () => {
  it('brings back what the last stop saved', async () => {
    const cache = { dir, maxBytes: GIB };
    await saveSlots({ client: fakeSlotEngine(dir, [1051, 67]), cache }, logger(), 1000);
    const fresh = fakeSlotEngine(dir, [0, 0]);
    const restored = await restoreSlots({ client: fresh, cache }, logger());
    expect(restored).toMatchObject({ slots: 2, tokens: 1118 });
    expect(fresh.slots).toEqual([1051, 67]);
  });

  it('waits for an engine still loading its model, then restores', async () => {
    const cache = { dir, maxBytes: GIB };
    await saveSlots({ client: fakeSlotEngine(dir, [700, 0]), cache }, logger(), 1000);
    const fresh = fakeSlotEngine(dir, [0, 0]);
    fresh.loading = 3;
    expect(await restoreSlots({ client: fresh, cache }, logger())).toMatchObject({ tokens: 700 });
    expect(fresh.calls.filter((call) => call === 'identity')).toHaveLength(4);
  });

  it('times the restore alone, not the engine loading its model before it', async () => {
    const cache = { dir, maxBytes: GIB };
    await saveSlots({ client: fakeSlotEngine(dir, [700, 0]), cache }, logger(), 1000);
    const fresh = fakeSlotEngine(dir, [0, 0]);
    fresh.loading = 3;
    // A clock that each call of the engine moves on: 500 ms a loading answer, 30 ms a restore.
    let clock = 0;
    const client = {
      identity: (signal: AbortSignal) => ((clock += 500), fresh.identity(signal)),
      save: fresh.save.bind(fresh),
      restore: (slot: number, file: string, signal: AbortSignal) => (
        (clock += 30),
        fresh.restore(slot, file, signal)
      ),
    };
    const restored = await restoreSlots({ client, cache }, logger(), 1000, () => clock);
    expect(restored).toMatchObject({ slots: 1, tokens: 700, ms: 30 });
  });

  it('asks nothing of the engine when nothing was kept', async () => {
    const fresh = fakeSlotEngine(dir, [0, 0]);
    fresh.loading = 1_000_000;
    const restored = await restoreSlots({ client: fresh, cache: { dir, maxBytes: GIB } }, logger());
    expect(restored).toMatchObject({ slots: 0, tokens: 0 });
    expect(fresh.calls).toEqual([]);
  });

  it('never loads another model’s cache: a changed model, file or build restores nothing', async () => {
    const cache = { dir, maxBytes: GIB };
    await saveSlots({ client: fakeSlotEngine(dir, [900, 0]), cache }, logger(), 1000);
    for (const change of [
      { model: '/models/other.gguf' },
      { modelMtimeMs: TINY_IDENTITY.modelMtimeMs + 1 },
      { build: 'b9999' },
      { context: 4096 },
    ]) {
      const fresh = fakeSlotEngine(dir, [0, 0]);
      fresh.identityNow = { ...fresh.identityNow, ...change };
      lines = [];
      expect(await restoreSlots({ client: fresh, cache }, logger())).toMatchObject({ slots: 0 });
      expect(fresh.calls.filter((call) => call.startsWith('restore'))).toEqual([]);
      // It says why: the identity the file was saved under differs, and in what.
      const [key] = Object.keys(change);
      expect(lines.join('\n')).toMatch(
        new RegExp(
          `skipped an engine slot file saved by another model.*slot=0.*differs=${key}`,
          'u',
        ),
      );
    }
  });

  it('skips a file whose recorded identity differs, even under the expected name', async () => {
    const cache = { dir, maxBytes: GIB };
    await saveSlots({ client: fakeSlotEngine(dir, [900, 0]), cache }, logger(), 1000);
    const meta = (await readdir(dir)).find((name) => name.endsWith('.json')) ?? '';
    const recorded = JSON.parse(await readFile(join(dir, meta), 'utf8')) as object;
    await writeFile(join(dir, meta), JSON.stringify({ ...recorded, model: '/models/other.gguf' }));
    const fresh = fakeSlotEngine(dir, [0, 0]);
    expect(await restoreSlots({ client: fresh, cache }, logger())).toMatchObject({ slots: 0 });
    expect(fresh.calls.filter((call) => call.startsWith('restore'))).toEqual([]);
  });

  it('skips a corrupted file with a warning, drops it, and restores the other slots', async () => {
    const cache = { dir, maxBytes: GIB };
    await saveSlots({ client: fakeSlotEngine(dir, [500, 600]), cache }, logger(), 1000);
    const slot0 = (await readdir(dir)).find((name) => name.endsWith('-slot0.bin')) ?? '';
    await writeFile(join(dir, slot0), 'garbage');
    const fresh = fakeSlotEngine(dir, [0, 0]);
    const restored = await restoreSlots({ client: fresh, cache }, logger());
    expect(restored).toMatchObject({ slots: 1, tokens: 600 });
    expect(warnings().join('\n')).toMatch(/could not restore an engine slot.*invalid slot save/u);
    expect((await readdir(dir)).filter((name) => name.includes('-slot0.'))).toEqual([]);
  });
});

describe('evictOldest (keepCacheMax)', () => {
  it('keeps the newest files within the bound and removes the oldest with their identity', async () => {
    for (const [index, name] of ['old', 'mid', 'new'].entries()) {
      await writeFile(join(dir, `${name}-slot0.bin`), 'x'.repeat(100));
      await writeFile(join(dir, `${name}-slot0.json`), '{}');
      const at = new Date(Date.UTC(2026, 0, 1 + index));
      await utimes(join(dir, `${name}-slot0.bin`), at, at);
    }
    await writeFile(join(dir, 'torn-slot1.bin.part'), 'x');
    await evictOldest({ dir, maxBytes: 250 }, logger());
    expect((await readdir(dir)).sort()).toEqual([
      'mid-slot0.bin',
      'mid-slot0.json',
      'new-slot0.bin',
      'new-slot0.json',
    ]);
  });
});
