/**
 * Preset `.ini` files (spec §1.4): a `[*]` section of shared defaults and named model sections,
 * each a list of `key = value` engine settings. Pure: parsing, then choosing the section. Turning
 * entries into flags is the engine dialect's job (core/engines/dialect.ts).
 */
import { failed, ok, type Result } from './diagnostics.ts';

export interface PresetEntry {
  /** Key as written, lower-cased and trimmed. */
  readonly key: string;
  /** Value as written, trimmed; spaces inside stay (one argv token). */
  readonly value: string;
}

export interface PresetSection {
  readonly name: string;
  readonly entries: readonly PresetEntry[];
}

export interface Preset {
  /** Entries of `[*]` (or `[global]`), including any written before the first header. */
  readonly defaults: readonly PresetEntry[];
  readonly sections: readonly PresetSection[];
}

const GLOBAL_SECTIONS = new Set(['*', 'global']);

/** A comment starts with `#` or `;` at the start of a line or after whitespace, so URLs survive. */
function stripComment(line: string): string {
  const at = line.search(/(^|[ \t])[#;]/);
  return at < 0 ? line : line.slice(0, at);
}

export function parsePreset(text: string, source: string): Result<Preset> {
  const problems: string[] = [];
  const defaults: PresetEntry[] = [];
  const sections: { name: string; entries: PresetEntry[] }[] = [];
  let current: PresetEntry[] = defaults;

  text.split(/\r\n|\r|\n/).forEach((raw, index) => {
    const line = stripComment(raw).trim();
    const where = `${source}:${index + 1}`;
    if (line === '') {
      return;
    }
    if (line.startsWith('[')) {
      if (!line.endsWith(']')) {
        problems.push(`${where}: malformed section header "${line}"`);
        return;
      }
      const name = line.slice(1, -1).trim();
      if (name === '') {
        problems.push(`${where}: empty section name`);
        return;
      }
      if (GLOBAL_SECTIONS.has(name.toLowerCase())) {
        current = defaults;
        return;
      }
      const section = { name, entries: [] as PresetEntry[] };
      sections.push(section);
      current = section.entries;
      return;
    }
    const split = line.search(/[=:]/);
    const key = split < 0 ? '' : line.slice(0, split).trim().toLowerCase();
    if (key === '' || /\s/.test(key)) {
      problems.push(`${where}: expected key = value, got "${line}"`);
      return;
    }
    // llama.cpp reserves `version` at the top of its own preset files; it is not a flag.
    if (key === 'version' && current === defaults && sections.length === 0) {
      return;
    }
    current.push({ key, value: line.slice(split + 1).trim() });
  });

  return problems.length > 0 ? failed(problems) : ok({ defaults, sections });
}

/**
 * spec §1.4 section selection: ALIAS names the section (case-insensitively); otherwise a single
 * section is the one; several and no ALIAS is an error listing them (spec §7).
 */
export function selectSection(
  preset: Preset,
  alias: string | undefined,
  source: string,
): Result<PresetSection> {
  const names = preset.sections.map((section) => section.name).join(', ');
  if (preset.sections.length === 0) {
    return failed([`${source}: the preset defines no model sections (only [*] defaults)`]);
  }
  const match = preset.sections.find(
    (section) => section.name.toLowerCase() === alias?.toLowerCase(),
  );
  if (match !== undefined) {
    return ok(match);
  }
  // One section serves whatever the ALIAS: there is nothing to choose between.
  const [only, ...others] = preset.sections;
  if (only !== undefined && others.length === 0) {
    return ok(only);
  }
  if (alias !== undefined) {
    return failed([
      `${source}: the preset has no [${alias}] section for ALIAS ${alias} (available: ${names})`,
    ]);
  }
  return failed(
    [
      `${source}: the preset defines ${preset.sections.length} sections (${names}); set ALIAS in the Svcfile to choose one`,
    ],
    'ERR_PRESET_SECTION_AMBIGUOUS',
  );
}
