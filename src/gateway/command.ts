/**
 * `svc gateway`: one OpenAI-compatible endpoint for a fleet of daemons (spec §4.2). Startup
 * resolves the fleet file and every token it names before listening, and refuses what §7 says.
 */
import { join, resolve } from 'node:path';

import { resolveGuardedListen } from '../core/auth/guarded-listen.ts';
import {
  LOG_LEVEL_OPTION,
  parseCommandArgs,
  renderCommandHelp,
  TOKEN_OPTIONS,
} from '../core/cli-args.ts';
import type { CommandIo } from '../core/command.ts';
import { parseDuration } from '../core/duration.ts';
import { SvcError } from '../core/errors.ts';
import { fleetStateDir } from '../core/fleet/drivers/fleet-claim.ts';
import { loadFleet } from '../core/fleet/load/load-fleet.ts';
import { httpUrl } from '../core/http/listen.ts';
import { createLogger, resolveLogLevel } from '../core/logger.ts';
import { configDirFor } from '../core/paths.ts';
import { engineTimings } from '../core/settings.ts';
import { nextShutdownSignal } from '../core/signals.ts';
import { gatewayAddressHint } from './address-hint.ts';
import { settleHeap } from './settle-heap.ts';
import { startGateway } from './start-gateway.ts';

const OPTIONS = {
  fleet: {
    type: 'string',
    short: 'f',
    value: '<path>',
    description: 'Fleet file to serve (default ./fleet.yaml)',
  },
  listen: {
    type: 'string',
    value: '<addr>',
    description: 'Listen address (default :4000; port 0 picks one)',
  },
  loopback: {
    type: 'boolean',
    short: 'l',
    description: 'Listen on 127.0.0.1:4000; may run without a token',
  },
  'wake-timeout': {
    type: 'string',
    value: '<duration>',
    description: 'How long a woken engine may take to answer (default 5m)',
  },
  'reply-timeout': {
    type: 'string',
    value: '<duration>',
    description: 'How long a non-streamed reply may take (default 30m; streams have no limit)',
  },
  ...TOKEN_OPTIONS,
  ...LOG_LEVEL_OPTION,
} as const;

export const help = renderCommandHelp(
  [
    'svc gateway [-f fleet.yaml] [--listen <addr> | --loopback] [--api-token-file <path>] [--wake-timeout 5m] [--reply-timeout 30m]',
  ],
  [
    'Serves a fleet of svc daemons under one OpenAI-compatible endpoint: each completion goes to',
    'the node serving its model; a stopped node whose Svcfile describes the model is woken on',
    'demand. Callers present the gateway token; node tokens and engine keys come from the fleet',
    "file's variables (the environment, then the .env beside the fleet file).",
  ].join('\n'),
  OPTIONS,
);

export async function run(io: CommandIo): Promise<number> {
  const { values } = parseCommandArgs('gateway', OPTIONS, io.argv, 0);
  const logger = createLogger(
    resolveLogLevel({ flag: values['log-level'], env: io.env['SVC_LOG_LEVEL'] }),
  );
  const wakeText = values['wake-timeout'] ?? '5m';
  const wakeTimeoutMs = parseDuration(wakeText);
  if (wakeTimeoutMs === undefined) {
    throw new SvcError(
      'ERR_USAGE',
      `--wake-timeout "${wakeText}" is not a duration (write 30s, 5m or 1h)`,
    );
  }
  const replyText = values['reply-timeout'] ?? '30m';
  const replyTimeoutMs = parseDuration(replyText);
  if (replyTimeoutMs === undefined || replyTimeoutMs <= 0) {
    throw new SvcError(
      'ERR_USAGE',
      `--reply-timeout "${replyText}" is not a duration (write 90s, 30m or 2h)`,
    );
  }
  const fleetPath = resolve(io.cwd, values.fleet ?? 'fleet.yaml');
  const fleet = await loadFleet(fleetPath, io.env);
  settleHeap(fleet.nodes.length);
  const { address, token } = await resolveGuardedListen({
    flag: '--listen',
    given: values.listen,
    fallback: ':4000',
    loopback: { on: values.loopback === true, address: '127.0.0.1:4000' },
    tokens: {
      file: values['api-token-file'],
      env: io.env['SVC_API_TOKEN'],
      flag: values['api-token'],
    },
  });

  const signalled = nextShutdownSignal();
  const configDir = configDirFor(io.env, io.cwd);
  const gateway = await startGateway({
    fleet,
    listen: address,
    ...(token === undefined ? {} : { token: token.value }),
    wakeTimeoutMs,
    replyTimeoutMs,
    logger,
    configDir,
    env: io.env,
    ...engineTimings(io.env),
  });
  const locals = fleet.nodes.filter((node) => node.kind === 'local').map((node) => node.name);
  const hint = gatewayAddressHint(fleet.gateway, gateway.address);
  io.stdout.write(
    [
      `svc gateway for ${fleetPath} listening on ${httpUrl(gateway.address)}`,
      ...(hint === undefined ? [] : [hint]),
      // docs/design.md D27: this gateway runs these engines itself, on demand, and stops them when
      // it stops.
      ...(locals.length === 0
        ? []
        : [
            `local nodes ${locals.join(', ')}: engines run by this gateway, logs under ${join(fleetStateDir(configDir, fleet.path), 'nodes')}`,
          ]),
      '',
    ].join('\n'),
  );
  // docs/design.md D27: each local node that cannot start, with the message a request would get;
  // the rest of the fleet is served all the same.
  let stopping = false;
  void gateway.problems.then((problems) => {
    for (const [node, [problem = ''] = []] of problems) {
      if (!stopping) {
        io.stdout.write(`local node ${node} cannot start: ${problem}\n`);
      }
    }
  });
  logger.info('shutting down', { signal: await signalled });
  stopping = true;
  await gateway.close();
  // One clear last line, so a script or an operator knows the port (and every local engine's) is
  // free again.
  io.stdout.write('svc gateway stopped\n');
  return 0;
}
