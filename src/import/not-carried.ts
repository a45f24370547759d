/**
 * What an import could not carry over, and why: one entry per llama-swap setting (or flag), kept
 * by model so the report lists each model's losses under its name. Pure.
 */
import { closestName } from '../core/closest-name.ts';

export interface NotCarried {
  /** The setting or flag as the user wrote it (`cmdStop`, `--api-key`, `filters`). */
  readonly what: string;
  readonly why: string;
}

/**
 * Why a key is not carried when llama-swap has no such key: named with the closest key it has,
 * so a typo (`swapp`) is seen rather than silently ignored.
 */
export function unknownKey(key: string, known: readonly string[]): string {
  const near = closestName(key, known);
  return near === undefined
    ? 'not a llama-swap key'
    : `not a llama-swap key: did you mean ${near}?`;
}

export interface ModelLosses {
  /** The llama-swap model id; absent for the configuration as a whole. */
  readonly model?: string;
  readonly items: readonly NotCarried[];
}

/** The report's text: a heading per model, one line per setting; empty when all was carried. */
export function renderLosses(losses: readonly ModelLosses[]): string {
  const shown = losses.filter((entry) => entry.items.length > 0);
  if (shown.length === 0) {
    return '';
  }
  const lines = ['not carried over:'];
  for (const entry of shown) {
    lines.push(entry.model === undefined ? '  the configuration:' : `  model "${entry.model}":`);
    for (const item of entry.items) {
      lines.push(`    ${item.what}: ${item.why}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
