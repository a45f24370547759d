/**
 * The prompt cache kept across stops (docs/design.md D32): before a graceful stop every slot of a
 * llama-server is saved into its slot directory, and after the next start restored, before the
 * node is reported ready. Files are named by a hash of the identity that made them (model file,
 * its size and mtime, context per slot, engine build), with that identity written beside them, so
 * a restore never loads another model's cache. A save lands under a temp name and is renamed into
 * place, so a stop cut short leaves the old file or the new, never a torn one. Nothing here throws:
 * a failed save or restore is a warning and the stop or start goes on.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

import { type Clock, wallClock } from '../clock.ts';
import type { CacheRestore } from '../contract/schemas.ts';
import type { EngineSpec } from '../engines/engine-spec.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import type { Logger } from '../logger.ts';
import {
  httpSlotCacheClient,
  type SlotCacheClient,
  type SlotCacheClientFactory,
  type SlotIdentity,
} from './slot-cache-client.ts';

/** The engine's `--slot-save-path`, and `keepCacheMax`: the bytes kept there, oldest out first. */
export type KeepCache = NonNullable<EngineSpec['keepCache']>;

/** A running engine's kept cache: where its slots go, and the client that moves them. */
export interface KeptCache {
  readonly client: SlotCacheClient;
  readonly cache: KeepCache;
}

/**
 * A started engine's kept cache, when its spec keeps one: restored before the node is reported
 * ready, saved before a graceful stop.
 */
export function keptCache(
  spec: EngineSpec,
  baseUrl: string,
  factory: SlotCacheClientFactory = httpSlotCacheClient,
): KeptCache | undefined {
  return spec.keepCache && { client: factory(baseUrl, spec.keyFile), cache: spec.keepCache };
}

/** How long a restore may hold back a start before the rest of the slots start empty. */
export const RESTORE_LIMIT_MS = 60_000;
/** How often a restore asks an engine still loading its model again. */
const LOADING_POLL_MS = 100;

/** The engine's identity once it has loaded its model (a start may return before that). */
async function loadedIdentity(client: SlotCacheClient, signal: AbortSignal): Promise<SlotIdentity> {
  for (;;) {
    const identity = await client.identity(signal);
    if (identity !== 'loading') {
      return identity;
    }
    await delay(LOADING_POLL_MS, undefined, { signal });
  }
}

/** The slot directory, made (private) before the engine that writes into it starts. */
export async function prepareSlotDir(cache: KeepCache | undefined): Promise<void> {
  if (cache !== undefined) {
    await mkdir(cache.dir, { recursive: true, mode: 0o700 });
  }
}

interface SlotMeta extends SlotIdentity {
  readonly slot: number;
  readonly tokens: number;
  readonly bytes: number;
  readonly savedAt: string;
}

const IDENTITY_KEYS = ['model', 'modelBytes', 'modelMtimeMs', 'build', 'context'] as const;

function prefix(identity: SlotIdentity): string {
  const stamp = JSON.stringify(IDENTITY_KEYS.map((key) => identity[key]));
  return createHash('sha256').update(stamp).digest('hex').slice(0, 16);
}

/** `<hash>-slot<id>.bin` and its `.json`; the engine refuses names with a path in them. */
function names(identity: SlotIdentity, slot: number): { bin: string; meta: string; part: string } {
  const base = `${prefix(identity)}-slot${slot}`;
  return { bin: `${base}.bin`, meta: `${base}.json`, part: `${base}.bin.part` };
}

function sameIdentity(meta: Partial<SlotMeta>, identity: SlotIdentity): boolean {
  return IDENTITY_KEYS.every((key) => meta[key] === identity[key]);
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Saves every slot that holds tokens within `limitMs` (the stop's grace); returns how many. */
export async function saveSlots(
  { client, cache }: KeptCache,
  logger: Logger,
  limitMs: number,
): Promise<number> {
  const signal = AbortSignal.timeout(limitMs);
  let saved = 0;
  // What the engine reports writing, and its own time for it: the stop's cost of keeping the cache.
  const written = { bytes: 0, ms: 0 };
  try {
    const identity = await client.identity(signal);
    if (identity === 'loading') {
      return 0; // a model never loaded holds no cache
    }
    for (let slot = 0; slot < identity.slots; slot += 1) {
      // Past the grace period the rest are not tried: the stop goes on (docs/design.md D32).
      signal.throwIfAborted();
      const file = names(identity, slot);
      try {
        const result = await client.save(slot, file.part, signal);
        if (result.tokens === 0) {
          // An empty slot keeps what an earlier save left for it.
          await rm(join(cache.dir, file.part), { force: true });
          continue;
        }
        await rename(join(cache.dir, file.part), join(cache.dir, file.bin));
        const meta: SlotMeta = {
          ...identity,
          slot,
          tokens: result.tokens,
          bytes: result.bytes,
          savedAt: new Date().toISOString(),
        };
        await writeFileAtomic(join(cache.dir, file.meta), `${JSON.stringify(meta)}\n`);
        saved += 1;
        written.bytes += result.bytes;
        written.ms += result.ms;
      } catch (error) {
        await rm(join(cache.dir, file.part), { force: true }).catch(() => undefined);
        logger.warn('could not save an engine slot; its prompt cache is lost', {
          slot,
          reason: reason(error),
        });
      }
    }
  } catch (error) {
    logger.warn('could not save the engine slots; their prompt cache is lost', {
      reason: reason(error),
    });
  }
  await evictOldest(cache, logger);
  if (saved > 0) {
    const ms = Math.round(written.ms);
    logger.info('engine slots saved', { slots: saved, bytes: written.bytes, ms, dir: cache.dir });
  }
  return saved;
}

async function readMeta(path: string): Promise<Partial<SlotMeta> | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Partial<SlotMeta>;
  } catch {
    return undefined;
  }
}

/** Restores every slot saved by this same model, context and build, within `limitMs`. */
export async function restoreSlots(
  { client, cache }: KeptCache,
  logger: Logger,
  limitMs: number = RESTORE_LIMIT_MS,
  now: Clock = wallClock,
): Promise<CacheRestore> {
  const signal = AbortSignal.timeout(limitMs);
  let begun = now();
  let slots = 0;
  let tokens = 0;
  try {
    // Nothing kept (a first start): nothing to wait for.
    const kept = (await readdir(cache.dir).catch(() => [])).some((name) => name.endsWith('.json'));
    const identity = kept ? await loadedIdentity(client, signal) : undefined;
    // `ms` is the restore's own time: the engine loading its model is the start's, not the cache's.
    begun = now();
    for (let slot = 0; identity !== undefined && slot < identity.slots; slot += 1) {
      signal.throwIfAborted();
      const file = names(identity, slot);
      const meta = await readMeta(join(cache.dir, file.meta));
      if (meta === undefined) {
        await sayWhySkipped(cache.dir, slot, identity, logger);
        continue;
      }
      if (!sameIdentity(meta, identity)) {
        logger.info('skipped an engine slot file saved by another model or build', {
          slot,
          saved: meta.model,
          differs: IDENTITY_KEYS.filter((key) => meta[key] !== identity[key]).join(','),
        });
        continue;
      }
      try {
        const result = await client.restore(slot, file.bin, signal);
        slots += 1;
        tokens += result.tokens;
      } catch (error) {
        // A file the engine refuses (torn, corrupted, too large for the slot) is dropped so it is
        // not tried again; the slot starts empty.
        logger.warn('could not restore an engine slot; it starts empty', {
          slot,
          reason: reason(error),
        });
        await removePair(cache.dir, file.bin);
      }
    }
  } catch (error) {
    logger.warn('could not restore the engine slots; they start empty', { reason: reason(error) });
  }
  const restored = { slots, tokens, ms: Math.max(0, Math.round(now() - begun)) };
  if (slots > 0) {
    logger.info('engine slots restored', restored);
  }
  return restored;
}

/**
 * No file of this model, context and build for the slot: when another one's is there (the
 * Svcfile's model changed, its file was rewritten, another build), says what differs, so an
 * operator who expected a restore sees why there was none.
 */
async function sayWhySkipped(
  dir: string,
  slot: number,
  identity: SlotIdentity,
  logger: Logger,
): Promise<void> {
  const others = (await readdir(dir).catch(() => [])).filter((name) =>
    name.endsWith(`-slot${slot}.json`),
  );
  for (const name of others) {
    const meta = await readMeta(join(dir, name));
    const differs = meta && IDENTITY_KEYS.filter((key) => meta[key] !== identity[key]);
    if (differs !== undefined && differs.length > 0) {
      logger.info('skipped an engine slot file saved by another model or build', {
        slot,
        saved: meta?.model,
        differs: differs.join(','),
      });
    }
  }
}

async function removePair(dir: string, bin: string): Promise<void> {
  const base = bin.replace(/\.bin$/u, '');
  await rm(join(dir, `${base}.bin`), { force: true }).catch(() => undefined);
  await rm(join(dir, `${base}.json`), { force: true }).catch(() => undefined);
}

/** `keepCacheMax`: keeps the newest slot files within the bound, and drops left-over parts. */
export async function evictOldest(cache: KeepCache, logger: Logger): Promise<void> {
  try {
    const entries = await readdir(cache.dir);
    const files: { name: string; bytes: number; mtimeMs: number }[] = [];
    for (const name of entries) {
      if (name.endsWith('.bin.part')) {
        await rm(join(cache.dir, name), { force: true });
      } else if (name.endsWith('.bin')) {
        const info = await stat(join(cache.dir, name));
        files.push({ name, bytes: info.size, mtimeMs: info.mtimeMs });
      }
    }
    files.sort((a, b) => b.mtimeMs - a.mtimeMs || a.name.localeCompare(b.name));
    let kept = 0;
    for (const file of files) {
      kept += file.bytes;
      if (kept > cache.maxBytes) {
        await removePair(cache.dir, file.name);
        logger.info('removed an old engine slot file (keepCacheMax)', { file: file.name });
      }
    }
  } catch (error) {
    logger.warn('could not trim the engine slot files', { reason: reason(error) });
  }
}
