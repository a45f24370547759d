/**
 * `svc up [node…]`: one word for "bring it up here", as the original had (docs/cli.md, "svc up").
 * With a fleet.yaml in the working directory it is `svc fleet start` of the named nodes, or of
 * every node when none is named; without one it is `svc serve` with the same target rules (a path,
 * a directory, an alias, a URL, SVC_ALIAS, else ./Svcfile). It only dispatches: each command keeps
 * its own behaviour, output and exit status.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';

import { parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import type { CommandIo } from '../core/command.ts';
import { SvcError } from '../core/errors.ts';

const OPTIONS = {} as const;

export const help = renderCommandHelp(
  ['svc up [node…]', 'svc up [target]'],
  [
    'With a fleet.yaml in the current directory: starts the named nodes, or every node when none',
    'is named (svc fleet start <node…> | --all). Otherwise: runs the engine a Svcfile names in the',
    'foreground, as svc serve [target] does (a Svcfile path, a directory, an alias or a URL; with',
    'none, the alias named by SVC_ALIAS, else ./Svcfile).',
  ].join('\n'),
  OPTIONS,
);

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

export async function run(io: CommandIo): Promise<number> {
  const { positionals } = parseCommandArgs('up', OPTIONS, io.argv, Number.POSITIVE_INFINITY);
  if (await exists(join(io.cwd, 'fleet.yaml'))) {
    const fleet = await import('../fleet/command.ts');
    return fleet.run({
      ...io,
      argv: ['start', ...(positionals.length === 0 ? ['--all'] : positionals)],
    });
  }
  if (positionals.length > 1) {
    throw new SvcError(
      'ERR_USAGE',
      `svc up takes node names only beside a fleet.yaml, and there is none in ${io.cwd}; without one it takes one Svcfile target, not ${String(positionals.length)}`,
    );
  }
  const serve = await import('../serve/command.ts');
  return serve.run({ ...io, argv: positionals });
}
