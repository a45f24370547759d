/**
 * `svc serve [target]`: the engine a Svcfile names, in the foreground (spec §1.1, §1.5). On a
 * terminal it shows a live view of metrics and the engine log; off one it forwards the engine's
 * output. `--dry-run` prints the command and starts nothing; `--api` adds the control API.
 */
import {
  LOG_LEVEL_OPTION,
  parseCommandArgs,
  renderCommandHelp,
  TOKEN_OPTIONS,
} from '../core/cli-args.ts';
import type { CommandIo } from '../core/command.ts';
import { SvcError } from '../core/errors.ts';
import { configDirFor } from '../core/paths.ts';
import { secondsSetting } from '../core/settings.ts';
import { runServe } from './run-serve.ts';

const OPTIONS = {
  'dry-run': {
    type: 'boolean',
    short: 'n',
    description: 'Print the engine command without running it',
  },
  api: { type: 'boolean', short: 'a', description: 'Serve the control API beside the engine' },
  'keep-cache': {
    type: 'boolean',
    description: "Save a llama.cpp engine's slots when it stops; restore them at the next start",
  },
  'api-addr': {
    type: 'string',
    value: '<addr>',
    description: 'Control API listen address (default :4242)',
  },
  ...TOKEN_OPTIONS,
  ...LOG_LEVEL_OPTION,
} as const;

export const help = renderCommandHelp(
  [
    'svc serve [target] [--dry-run] [--keep-cache] [--api [--api-addr <addr>] [--api-token-file <path>]]',
  ],
  [
    'Runs the engine a Svcfile names in the foreground until you quit or the engine exits, and',
    "exits with the engine's status. target is a Svcfile path, a directory holding a Svcfile, a",
    'registered alias (svc alias) or an http(s) URL; with none, the alias named by SVC_ALIAS, else',
    './Svcfile. On a terminal: a live view (↑↓ scroll, pgup/pgdn page, f pause/follow, q quit).',
    'Off a terminal: the engine output is forwarded. The engine command is printed first.',
    '',
    'SVC_API_TOKEN may come from the .env beside the Svcfile.',
  ].join('\n'),
  OPTIONS,
);

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('serve', OPTIONS, io.argv, 1);
  const target = positionals[0];
  const apiOnly = (['api-addr', 'api-token-file', 'api-token'] as const).filter(
    (name) => values[name] !== undefined,
  );
  if (values.api !== true && apiOnly.length > 0) {
    throw new SvcError('ERR_USAGE', `--${apiOnly[0] ?? ''} needs --api`);
  }
  const interval = io.env['SVC_SAMPLE_INTERVAL_SECONDS'];
  return runServe({
    ...(target === undefined ? {} : { target }),
    dryRun: values['dry-run'] === true,
    keepCache: values['keep-cache'] === true,
    api: values.api === true,
    ...(values['api-addr'] === undefined ? {} : { apiAddr: values['api-addr'] }),
    ...(values['api-token-file'] === undefined ? {} : { apiTokenFile: values['api-token-file'] }),
    ...(values['api-token'] === undefined ? {} : { apiToken: values['api-token'] }),
    ...(values['log-level'] === undefined ? {} : { logLevel: values['log-level'] }),
    configDir: configDirFor(io.env, io.cwd),
    cwd: io.cwd,
    env: io.env,
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    ...(interval === undefined || interval === ''
      ? {}
      : { sampleIntervalMs: secondsSetting('SVC_SAMPLE_INTERVAL_SECONDS', interval, 0, 100) }),
  });
}
