/**
 * What an import could not carry over, and why: one entry per llama-swap setting (or flag), kept
 * by model so the report lists each model's losses under its name. Pure.
 */

export interface NotCarried {
  /** The setting or flag as the user wrote it (`cmdStop`, `--api-key`, `filters`). */
  readonly what: string;
  readonly why: string;
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
