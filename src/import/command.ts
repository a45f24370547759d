/**
 * `svc import llama-swap <config.yaml> [--out <dir>] [--dry-run] [--force]` (docs/design.md D27): a
 * llama-swap configuration → a fleet file of local nodes and one Svcfile (and preset) per model,
 * then what could not carry over, by model. The translation is pure (translate.ts); this module
 * reads the file, and writes the result (write-plan.ts) or, with --dry-run, prints it.
 */
import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';

import { parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import type { CommandIo } from '../core/command.ts';
import { SvcError } from '../core/errors.ts';
import { unwrap } from '../core/project/diagnostics.ts';
import { ENV_FILE, withToken } from './gateway-section.ts';
import { renderLosses } from './not-carried.ts';
import { importLlamaSwap } from './translate.ts';
import { existingTargets, writePlan } from './write-plan.ts';

const OPTIONS = {
  out: {
    type: 'string',
    short: 'o',
    value: '<dir>',
    description: 'Where to write fleet.yaml and the model folders (default: here)',
  },
  'dry-run': { type: 'boolean', description: 'Print the files instead of writing them' },
  force: { type: 'boolean', short: 'f', description: 'Replace files that already exist' },
} as const;

/** The formats svc imports; one today. */
const FORMATS = ['llama-swap'] as const;

export const help = renderCommandHelp(
  ['svc import llama-swap <config.yaml> [--out <dir>] [--dry-run] [--force]'],
  [
    "Turns a llama-swap configuration into svc's files: <dir>/fleet.yaml with one local node per",
    'model, and <dir>/<model id>/Svcfile (plus preset.ini there for flags a Svcfile has no keyword',
    'for). Then lists, model by model, what could not carry over and why. Existing files are',
    'replaced only with --force. See docs/import.md.',
  ].join('\n'),
  OPTIONS,
);

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('import', OPTIONS, io.argv, 2);
  const [format, configPath] = positionals;
  if (format === undefined || !(FORMATS as readonly string[]).includes(format)) {
    throw new SvcError(
      'ERR_USAGE',
      `svc import takes a format: ${FORMATS.join(', ')}${format === undefined ? '' : `, not "${format}"`} (see svc import --help)`,
    );
  }
  if (configPath === undefined) {
    throw new SvcError(
      'ERR_USAGE',
      'svc import llama-swap needs the configuration file: svc import llama-swap config.yaml',
    );
  }
  const text = await readFile(resolve(io.cwd, configPath), 'utf8').catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new SvcError('ERR_IMPORT', `cannot read ${configPath} (${code})`);
  });
  const plan = unwrap(importLlamaSwap(text, configPath, io.env), 'ERR_IMPORT');
  const out = resolve(io.cwd, values.out ?? '.');
  const shown = (path: string): string => relative(io.cwd, path) || '.';

  if (values['dry-run'] === true) {
    const existing = await existingTargets(out, plan.files);
    for (const file of plan.files) {
      io.stdout.write(`--- ${shown(join(out, file.path))}\n${file.text}\n`);
    }
    if (existing.length > 0) {
      io.stdout.write(`these exist and would need --force: ${existing.map(shown).join(', ')}\n`);
    }
  } else {
    // The gateway token is made here, written into .env only, and never printed.
    const files = plan.files.map((file) =>
      file.path === ENV_FILE ? { ...file, text: withToken(file.text) } : file,
    );
    const written = await writePlan(out, files, values.force === true);
    io.stdout.write(written.map((path) => `wrote ${shown(path)}\n`).join(''));
  }
  io.stdout.write(renderLosses(plan.losses));
  return 0;
}
