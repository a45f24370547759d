/**
 * `svc daemon`: one supervised engine behind the control API (spec §1 item 1, §1.5). It reads no
 * Svcfile, preset or fleet file; what it runs comes from start requests and deploy-config pushes.
 */
import { resolveGuardedListen } from '../core/auth/guarded-listen.ts';
import {
  LOG_LEVEL_OPTION,
  parseCommandArgs,
  renderCommandHelp,
  TOKEN_OPTIONS,
} from '../core/cli-args.ts';
import type { CommandIo } from '../core/command.ts';
import { SvcError } from '../core/errors.ts';
import { httpUrl } from '../core/http/listen.ts';
import { createLogger, resolveLogLevel } from '../core/logger.ts';
import { configDirFor } from '../core/paths.ts';
import { engineTimings } from '../core/settings.ts';
import { nextShutdownSignal } from '../core/signals.ts';
import { startDaemon } from './start-daemon.ts';

const OPTIONS = {
  'api-addr': {
    type: 'string',
    value: '<addr>',
    description: 'Control API listen address (default :4242; port 0 picks one)',
  },
  loopback: {
    type: 'boolean',
    short: 'l',
    description: 'Listen on 127.0.0.1:4242; may run without a token',
  },
  ...TOKEN_OPTIONS,
  ...LOG_LEVEL_OPTION,
} as const;

export const help = renderCommandHelp(
  ['svc daemon [--api-addr <addr> | --loopback] [--api-token-file <path>]'],
  [
    'Supervises one inference engine behind an authenticated JSON control API. Nothing runs',
    'until a start request asks; stopping the engine never ends the daemon; a crashed engine is',
    'reported and never restarted. SIGINT or SIGTERM stops the engine and exits.',
    '',
    'Environment: SVC_API_TOKEN (a token source), SVC_LOG_LEVEL, SVC_CONFIG_DIR,',
    'SVC_STOP_GRACE_SECONDS (SIGTERM → SIGKILL grace, default 10),',
    'SVC_SAMPLE_INTERVAL_SECONDS (telemetry tick, default 15).',
  ].join('\n'),
  OPTIONS,
);

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'daemon',
    OPTIONS,
    io.argv,
    Number.POSITIVE_INFINITY,
  );
  if (positionals.length > 0) {
    throw new SvcError(
      'ERR_USAGE',
      `svc daemon takes no Svcfile (got "${positionals.join(' ')}"): it runs what a start request tells it to; use svc serve to run a Svcfile`,
    );
  }
  const logger = createLogger(
    resolveLogLevel({ flag: values['log-level'], env: io.env['SVC_LOG_LEVEL'] }),
  );
  const { address, token } = await resolveGuardedListen({
    flag: '--api-addr',
    given: values['api-addr'],
    fallback: ':4242',
    loopback: { on: values.loopback === true, address: '127.0.0.1:4242' },
    tokens: {
      file: values['api-token-file'],
      env: io.env['SVC_API_TOKEN'],
      flag: values['api-token'],
    },
  });
  const configDir = configDirFor(io.env, io.cwd);

  // Signals are taken before the daemon announces itself (see core/signals.ts).
  const signalled = nextShutdownSignal();

  const daemon = await startDaemon({
    listen: address,
    ...(token === undefined ? {} : { token: token.value }),
    logger,
    configDir,
    env: io.env,
    ...engineTimings(io.env),
  });
  io.stdout.write(`svc daemon listening on ${httpUrl(daemon.address)}\n`);
  logger.info('daemon ready: nothing runs until a start request arrives', {
    engineLog: daemon.logPath,
    auth: token === undefined ? 'none (loopback)' : token.source,
  });

  logger.info('shutting down', { signal: await signalled });
  await daemon.close();
  // One clear last line: the engine and the control API are both gone.
  io.stdout.write('svc daemon stopped\n');
  return 0;
}
