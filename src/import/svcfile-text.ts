/**
 * The text of an imported model's Svcfile and preset (docs/svcfile.md): one keyword per line,
 * ALIAS the llama-swap model id (the name its clients ask for, docs/design.md D14), and a
 * `preset.ini` with one section only when flags need one. Pure.
 */
import { ENGINES, isModelPath } from '../core/engines/engine-table.ts';
import { quoteToken } from '../core/engines/shell-quote.ts';
import type { PresetLine } from './engine-flags.ts';
import type { ImportedModel } from './model-import.ts';
import type { NotCarried } from './not-carried.ts';

export const PRESET_FILE = 'preset.ini';

export interface ModelFiles {
  readonly svcfile: string;
  /** Absent when every flag has a Svcfile keyword. */
  readonly preset?: string;
  readonly notes: readonly NotCarried[];
}

/** A Svcfile value is one word that does not start a comment. */
function isWord(value: string): boolean {
  return value !== '' && !/\s/.test(value) && !value.startsWith('#');
}

function baseUrlOf(model: ImportedModel): string | undefined {
  const { host, port, provider } = model.fields;
  if (host === undefined && port === undefined) {
    return undefined;
  }
  const name = host ?? ENGINES[provider].defaultHost;
  const bracketed = name.includes(':') ? `[${name}]` : name;
  return port === undefined ? bracketed : `${bracketed}:${port}`;
}

/**
 * Whether MODEL is a relative path, which svc reads from the Svcfile's directory: a llama.cpp
 * path (docs/design.md D2), or a vLLM one written as such (`./…`; `org/name` is a hub repository).
 */
/** A COMMAND or STOP line: words quoted for the Svcfile's splitter, `${PORT}`/`${PID}` bare. */
function commandLine(argv: readonly string[]): string {
  return argv
    .map((word) =>
      quoteToken(word.replaceAll('${PORT}', 'SVCPORTWORD').replaceAll('${PID}', 'SVCPIDWORD'))
        .replaceAll('SVCPORTWORD', '${PORT}')
        .replaceAll('SVCPIDWORD', '${PID}'),
    )
    .join(' ');
}

function isRelativePath(model: string, provider: ImportedModel['fields']['provider']): boolean {
  const path = provider === 'llamacpp' ? isModelPath(model) : /^\.\.?[\\/]/.test(model);
  return path && !/^[/~\\]/.test(model) && !/^[a-z]:[\\/]/i.test(model);
}

export function modelFiles(model: ImportedModel, section: string, origin: string): ModelFiles {
  const { fields } = model;
  const notes: NotCarried[] = [];
  const preset: PresetLine[] = [...fields.preset];
  let written = fields.model;
  if (written !== undefined && !isWord(written)) {
    // A Svcfile value cannot hold a space; a preset value can (spec §1.4), under the engine's flag.
    const key = fields.provider === 'llamacpp' && !isModelPath(written) ? 'hf-repo' : 'model';
    preset.unshift({ key, value: written });
    written = undefined;
  }
  if (written !== undefined && isRelativePath(written, fields.provider)) {
    notes.push({
      what: `MODEL ${written}`,
      why: "a relative path: svc reads it from the Svcfile's directory, llama-swap from its working directory; make it absolute if it no longer resolves",
    });
  }
  const baseUrl = baseUrlOf(model);
  const program = model.command;
  const rows: [string, string | number | undefined][] = [
    ['PROVIDER', fields.provider],
    ['ENGINE', fields.engine],
    ['MODEL', written],
    ['ALIAS', model.names.servedName ?? model.id],
    ['COMMAND', program === undefined ? undefined : commandLine(program.argv)],
    ['HEALTH', program?.health],
    ['STOP', program?.stop === undefined ? undefined : commandLine(program.stop)],
    ['CONTEXT', fields.context],
    ['PARALLEL', fields.parallel],
    ['BASEURL', baseUrl],
    ['PRESET', preset.length > 0 ? PRESET_FILE : undefined],
  ];
  const lines = [
    `# llama-swap model "${model.id}" from ${origin}, imported by svc import llama-swap`,
    ...rows.flatMap(([keyword, value]) =>
      value === undefined ? [] : [`${keyword.padEnd(8)} ${value}`],
    ),
    ...model.env.map((entry) => `ENV      ${entry.key}=${entry.value}`),
  ];
  const svcfile = `${lines.join('\n')}\n`;
  if (preset.length === 0) {
    return { svcfile, notes };
  }
  const presetText = [
    `; the flags of llama-swap model "${model.id}" that have no Svcfile keyword`,
    `[${section}]`,
    ...preset.map((line) => (line.value === '' ? `${line.key} =` : `${line.key} = ${line.value}`)),
  ].join('\n');
  return { svcfile, preset: `${presetText}\n`, notes };
}
