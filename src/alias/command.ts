/**
 * `svc alias`: short names for Svcfiles, so `svc serve qwen` works from any directory.
 *
 *   svc alias [path|url] [-n name] [--force]   register (name defaults to the Svcfile's ALIAS)
 *   svc alias --list                           list
 *   svc alias --delete name                    remove
 *
 * A local target is stored as the absolute path of the Svcfile itself (not its directory), so a
 * relative PRESET keeps resolving; a URL is stored as given.
 */
import { parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import type { CommandIo } from '../core/command.ts';
import { SvcError } from '../core/errors.ts';
import { configDirFor } from '../core/paths.ts';
import { readAliases, registerAlias, registryPath, removeAlias } from '../core/project/aliases.ts';
import { unwrap } from '../core/project/diagnostics.ts';
import { describeOrigin, originOf, readOrigin, SVCFILE } from '../core/project/load.ts';
import { parseSvcfile } from '../core/project/parse.ts';

const OPTIONS = {
  name: {
    type: 'string',
    short: 'n',
    value: '<name>',
    description: "Alias name (default: the Svcfile's ALIAS)",
  },
  force: { type: 'boolean', short: 'f', description: 'Re-point an alias that already exists' },
  list: { type: 'boolean', short: 'l', description: 'List registered aliases' },
  delete: { type: 'string', short: 'd', value: '<name>', description: 'Remove an alias' },
} as const;

export const help = renderCommandHelp(
  ['svc alias [path|url] [-n name] [--force]', 'svc alias --list', 'svc alias --delete <name>'],
  [
    `Registers a Svcfile under a short name for svc serve <name> and SVC_ALIAS. path is a ${SVCFILE},`,
    `a directory holding one (default: ./${SVCFILE}) or an http(s) URL. Aliases live in`,
    'config.json in the svc config directory.',
  ].join('\n'),
  OPTIONS,
);

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('alias', OPTIONS, io.argv, 1);
  const configDir = configDirFor(io.env, io.cwd);
  const modes = [
    values.list === true,
    values.delete !== undefined,
    positionals.length > 0 || values.name !== undefined,
  ];
  if (modes.filter(Boolean).length > 1) {
    throw new SvcError(
      'ERR_USAGE',
      '--list, --delete and registering are separate: pass one (see svc alias --help)',
    );
  }

  if (values.list === true) {
    const table = await readAliases(configDir);
    const names = Object.keys(table).sort();
    if (names.length === 0) {
      io.stderr.write(`no aliases registered (${registryPath(configDir)})\n`);
      return 0;
    }
    const width = Math.max(...names.map((name) => name.length));
    io.stdout.write(names.map((name) => `${name.padEnd(width)}  ${table[name] ?? ''}\n`).join(''));
    return 0;
  }

  if (values.delete !== undefined) {
    const target = await removeAlias(configDir, values.delete);
    io.stdout.write(`removed alias "${values.delete}" (was ${target})\n`);
    return 0;
  }

  const given = positionals[0] ?? SVCFILE;
  const origin = await originOf(given, io.cwd);
  if (origin === undefined) {
    throw new SvcError('ERR_PROJECT_NOT_FOUND', `no ${SVCFILE} at ${given}`);
  }
  const source = describeOrigin(origin);
  // Parse before registering: an alias to a broken Svcfile is refused now, not at serve time.
  const project = unwrap(parseSvcfile(await readOrigin(origin), source));
  const name = values.name ?? project.alias?.value;
  if (name === undefined) {
    throw new SvcError('ERR_USAGE', `${source} has no ALIAS: name the alias with -n <name>`);
  }
  const outcome = await registerAlias(configDir, name, source, values.force === true);
  const verb =
    outcome === 'unchanged'
      ? 'already points at'
      : outcome === 're-pointed'
        ? 're-pointed to'
        : '→';
  io.stdout.write(`alias "${name}" ${verb} ${source}\n`);
  return 0;
}
