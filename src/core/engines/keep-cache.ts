/**
 * `keepCache` and `keepCacheMax` (docs/design.md D32), read the same way wherever they arrive
 * (fleet file, deploy config, `svc serve --keep-cache`): only llama.cpp engines keep their prompt
 * cache, and the bound is a size such as `8GiB`. Pure: values in, the engine spec's `keepCache`
 * or a problem naming the field out.
 */
import { SvcError } from '../errors.ts';
import type { EngineSpec } from './engine-spec.ts';
import type { Runner } from './engine-table.ts';

export const DEFAULT_KEEP_CACHE_MAX = '8GiB';

/** A size as written: a whole number of bytes, or a number with B, KB…TB or KiB…TiB. */
export const SIZE_PATTERN = '^[0-9]+(\\.[0-9]+)?\\s*([KMGT]i?B|B)?$';

const UNITS: Readonly<Record<string, number>> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KIB: 1024,
  MIB: 1024 ** 2,
  GIB: 1024 ** 3,
  TIB: 1024 ** 4,
};

/** Bytes of a size such as `8GiB`, `500MB` or `1048576`; undefined when it is not one. */
export function parseSize(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  }
  if (typeof value !== 'string') {
    return undefined;
  }
  const match = /^([0-9]+(?:\.[0-9]+)?)\s*([KMGT]i?B|B)?$/iu.exec(value.trim());
  if (match === null) {
    return undefined;
  }
  const unit = UNITS[(match[2] ?? 'B').toUpperCase()];
  return unit === undefined ? undefined : Math.floor(Number(match[1]) * unit);
}

/** Why `runner` cannot keep its cache, naming `field`; undefined for llama.cpp. */
export function keepCacheRunnerProblem(runner: Runner, field: string): string | undefined {
  return runner === 'llamacpp'
    ? undefined
    : `${field}: only llama.cpp engines keep their prompt cache across stops, and this one runs ${runner}; remove ${field}`;
}

/** The spec's `keepCache` for a slot directory, or a problem naming `maxField`. */
export function keepCacheOf(
  dir: string,
  max: unknown,
  maxField: string,
): { keepCache: { dir: string; maxBytes: number } } | { problem: string } {
  const maxBytes = parseSize(max ?? DEFAULT_KEEP_CACHE_MAX);
  if (maxBytes === undefined) {
    return {
      problem: `${maxField}: ${JSON.stringify(max)} is not a size: give bytes or a number with a unit, as in ${DEFAULT_KEEP_CACHE_MAX} or 500MB`,
    };
  }
  return { keepCache: { dir, maxBytes } };
}

/** `svc serve --keep-cache`: the spec with its slot directory, or a usage error naming the flag. */
export function servedKeepCache(spec: EngineSpec, dir: string): EngineSpec {
  const refused = keepCacheRunnerProblem(spec.runner, '--keep-cache');
  if (refused !== undefined) {
    throw new SvcError('ERR_USAGE', refused);
  }
  return { ...spec, keepCache: { dir, maxBytes: parseSize(DEFAULT_KEEP_CACHE_MAX) ?? 0 } };
}
