/**
 * `svc serve [target]`: the engine a Svcfile names (spec §1.1). With `--dry-run` it prints the
 * exact command (shell-quoted, pasteable) and starts nothing.
 */
import type { CommandIo } from '../commands.ts';
import { parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import { buildCommand } from '../core/engines/build-command.ts';
import { formatCommand } from '../core/engines/shell-quote.ts';
import { SvcError } from '../core/errors.ts';
import { configDirFor } from '../core/paths.ts';
import { readAliases } from '../core/project/aliases.ts';
import { describeOrigin } from '../core/project/load.ts';
import { openProject } from '../core/project/open-project.ts';

const OPTIONS = {
  'dry-run': {
    type: 'boolean',
    short: 'n',
    description: 'Print the engine command without running it',
  },
} as const;

export const help = renderCommandHelp(
  ['svc serve [target] --dry-run'],
  [
    'Resolves a Svcfile to its engine command. target is a Svcfile path, a directory holding a',
    'Svcfile, a registered alias (svc alias) or an http(s) URL; with none, the alias named by',
    'SVC_ALIAS, else ./Svcfile. The command goes to stdout; notes go to stderr.',
    '',
    'Running the engine in the foreground (with its live view and --api) is not built yet;',
    'today serve only prints the command.',
  ].join('\n'),
  OPTIONS,
);

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('serve', OPTIONS, io.argv, 1);
  if (values['dry-run'] !== true) {
    throw new SvcError(
      'ERR_USAGE',
      'svc serve can only print the engine command so far: pass --dry-run (-n)',
    );
  }
  const configDir = configDirFor(io.env, io.cwd);
  const opened = await openProject(positionals[0], {
    cwd: io.cwd,
    env: io.env,
    aliases: () => readAliases(configDir),
    // GUIDE D3: a plain serve off a terminal is not supervised; --dry-run prints what it would run.
    supervised: false,
  });
  const command = buildCommand(opened.spec);

  const narration = [...opened.notes];
  const from = describeOrigin(opened.origin);
  if (opened.presetSource !== undefined) {
    narration.push(`Using preset ${opened.presetSource} (model ${opened.section ?? '?'})`);
  } else if (opened.spec.model !== undefined) {
    narration.push(`Serving ${opened.spec.model} from ${from}`);
  } else {
    narration.push(`Starting ${opened.spec.runner} from ${from}`);
  }
  io.stderr.write(`${narration.join('\n')}\n`);
  io.stdout.write(`${formatCommand([command.bin, ...command.args])}\n`);
  return 0;
}
