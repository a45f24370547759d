/**
 * A llama-server's slot save and restore as the keepCache policy sees it (the engine's replies to
 * `/props` and `POST /slots/<id>?action=save|restore`), for unit tests: slots hold token counts,
 * a save writes a file into the slot directory the way the engine does, and a restore refuses a
 * file it did not write (as the engine answers 400 for a torn or foreign file). Checked against
 * the real engine by the keep-cache end-to-end tests.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { SlotCacheClient, SlotIdentity } from '../../../src/core/runner/slot-cache-client.ts';

const MAGIC = 'fake-slot-file';

export interface FakeSlotEngine extends SlotCacheClient {
  /** Tokens held in each slot now. */
  readonly slots: number[];
  readonly calls: string[];
  identityNow: SlotIdentity;
  /** How many more identity calls answer `loading` (the engine still loads its model). */
  loading: number;
  /** When set, saves of this slot fail, or hang until the caller gives up. */
  failSave?: { slot: number; how: 'error' | 'hang' };
}

export const TINY_IDENTITY: SlotIdentity = {
  model: '/models/tiny.gguf',
  modelBytes: 475_712,
  modelMtimeMs: 1_700_000_000_000,
  build: 'b11669-Debian',
  context: 2048,
  slots: 2,
};

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(new Error('the save was cut off')), {
      once: true,
    });
  });
}

export function fakeSlotEngine(dir: string, tokens: number[]): FakeSlotEngine {
  const engine: FakeSlotEngine = {
    slots: [...tokens],
    calls: [],
    identityNow: { ...TINY_IDENTITY, slots: tokens.length },
    loading: 0,
    identity() {
      engine.calls.push('identity');
      if (engine.loading > 0) {
        engine.loading -= 1;
        return Promise.resolve('loading' as const);
      }
      return Promise.resolve(engine.identityNow);
    },
    async save(slot, filename, signal) {
      engine.calls.push(`save ${slot} ${filename}`);
      if (engine.failSave?.slot === slot) {
        if (engine.failSave.how === 'hang') {
          return aborted(signal);
        }
        throw new Error('the engine answered 500: failed to save');
      }
      const held = engine.slots[slot] ?? 0;
      const body = `${MAGIC} ${held}\n${'x'.repeat(held)}`;
      await writeFile(join(dir, filename), body);
      return { tokens: held, bytes: body.length, ms: 1 };
    },
    async restore(slot, filename) {
      engine.calls.push(`restore ${slot} ${filename}`);
      const body = await readFile(join(dir, filename), 'utf8').catch(() => '');
      const match = new RegExp(`^${MAGIC} (\\d+)\\n`, 'u').exec(body);
      if (match === null) {
        throw new Error(
          'the engine answered 400: Unable to restore slot: No available space in KV cache or invalid slot save file',
        );
      }
      engine.slots[slot] = Number(match[1]);
      return { tokens: Number(match[1]), bytes: body.length, ms: 1 };
    },
  };
  return engine;
}
