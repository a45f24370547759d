/**
 * How an engine spells its flags, and how layers of settings become one flag list (spec §1.4):
 * preset `[*]` defaults, then the chosen section, then what the Svcfile states. A later layer
 * replaces an earlier entry for the same setting in place; no flag is emitted twice. Pure.
 */

export interface Dialect {
  /** Short or alternative keys → the canonical long key (`hf` → `hf-repo`). */
  readonly aliases: Readonly<Record<string, string>>;
  /** Keys that are switches: truthy → bare flag, falsy → dropped. */
  readonly booleans: ReadonlySet<string>;
}

/** One setting on its way to the command line. */
export interface Param {
  /** Canonical key: the slot this setting occupies. */
  readonly key: string;
  readonly value: string;
  /** Exact flag spelling; derived from the key when absent. */
  readonly flag?: string;
  /** Further slots this setting takes over (MODEL replaces both `hf-repo` and `model`). */
  readonly replaces?: readonly string[];
  /** True for settings stated by svc itself (never subject to the boolean table). */
  readonly explicit?: boolean;
}

const FALSY = new Set(['0', 'false', 'off', 'no']);

export function canonicalKey(dialect: Dialect, key: string): string {
  const lower = key.trim().toLowerCase();
  return dialect.aliases[lower] ?? lower;
}

/** Preset entries as params in the dialect's canonical keys. */
export function presetParams(
  dialect: Dialect,
  entries: readonly { key: string; value: string }[],
): Param[] {
  return entries.map((entry) => ({ key: canonicalKey(dialect, entry.key), value: entry.value }));
}

/**
 * Merges layers in order. The first occurrence of a slot fixes its position; a later param for
 * the same slot (or one that `replaces` it) takes that position and drops the earlier ones.
 */
export function mergeLayers(layers: readonly (readonly Param[])[]): Param[] {
  const merged: Param[] = [];
  for (const param of layers.flat()) {
    const slots = new Set([param.key, ...(param.replaces ?? [])]);
    const first = merged.findIndex((existing) => slots.has(existing.key));
    if (first < 0) {
      merged.push(param);
      continue;
    }
    merged[first] = param;
    for (let index = merged.length - 1; index > first; index -= 1) {
      if (slots.has(merged[index]?.key ?? '')) {
        merged.splice(index, 1);
      }
    }
  }
  return merged;
}

/** `--key value`, `-k value` for one-letter keys, bare switches, dropped falsy switches. */
export function renderParams(dialect: Dialect, params: readonly Param[]): string[] {
  return params.flatMap((param) => {
    const flag = param.flag ?? (param.key.length === 1 ? `-${param.key}` : `--${param.key}`);
    if (param.explicit !== true && dialect.booleans.has(param.key)) {
      return FALSY.has(param.value.toLowerCase()) ? [] : [flag];
    }
    return param.value === '' ? [flag] : [flag, param.value];
  });
}
