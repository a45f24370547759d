/**
 * `svc up [node…]`: one word for "bring it up here", as the original had (docs/cli.md, "svc up").
 * With a fleet.yaml in the working directory it is `svc fleet start` of the named nodes, or of
 * every node when none is named; without one it is `svc serve` with the same target rules (a path,
 * a directory, an alias, a URL, SVC_ALIAS, else ./Svcfile). A fleet.yaml with a local node
 * (docs/design.md D27) is the daemon-less case: the gateway itself runs in the foreground,
 * supervising those engines. It only dispatches: each command keeps its own behaviour, output and
 * exit status. Its flags are the gateway's that make sense here (`-f`, `--listen`,
 * `--wake-timeout`, `--log-level`), each passed on to the command it runs; a gateway-only flag
 * where no gateway runs is refused rather than ignored (docs/design.md D20).
 */
import { access } from 'node:fs/promises';
import { hostname, networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';

import { LOG_LEVEL_OPTION, parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import type { CommandIo } from '../core/command.ts';
import { SvcError } from '../core/errors.ts';
import type { Fleet } from '../core/fleet/file/fleet-file.ts';
import { fleetDotenv, loadFleet } from '../core/fleet/load/load-fleet.ts';
import { parseLogLevel } from '../core/logger.ts';
import { SVCFILE } from '../core/project/load.ts';
import { upListenAddress } from './up-listen.ts';

const OPTIONS = {
  fleet: {
    type: 'string',
    short: 'f',
    value: '<path>',
    description: 'Fleet file (default ./fleet.yaml)',
  },
  listen: {
    type: 'string',
    value: '<addr>',
    description: "The gateway's listen address, over the gateway section's (local nodes)",
  },
  'wake-timeout': {
    type: 'string',
    value: '<duration>',
    description: 'How long a woken engine may take to answer (default 5m; local nodes)',
  },
  ...LOG_LEVEL_OPTION,
} as const;

/** The flags only the gateway takes: they mean nothing to svc fleet start or svc serve. */
const GATEWAY_ONLY = ['listen', 'wake-timeout'] as const;

export const help = renderCommandHelp(
  [
    'svc up [-f fleet.yaml] [--listen <addr>] [--wake-timeout 5m] [--log-level <level>] [node…]',
    'svc up [--log-level <level>] [target]',
  ],
  [
    'With a fleet.yaml in the current directory: starts the named nodes, or every node when none',
    'is named (svc fleet start <node…> | --all); when it has a local node (kind: local), runs the',
    "gateway in the foreground instead, at the gateway section's address when that is this",
    'machine, else 127.0.0.1:4000 (--listen overrides it), starting local engines on demand;',
    'Ctrl+C stops them and it.',
    'Otherwise: runs the engine a Svcfile names in the',
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

/** This machine's addresses and name, for where `svc up` may bind. */
function thisMachine(): { addresses: string[]; hostname: string } {
  const addresses = Object.values(networkInterfaces()).flatMap((entries) =>
    (entries ?? []).map((entry) => entry.address),
  );
  return { addresses, hostname: hostname() };
}

/**
 * The gateway for a fleet with local nodes, in the foreground. Its token, when SVC_API_TOKEN
 * gives none, is the one the gateway section's own tokenEnv names (the environment, then the
 * .env beside the fleet file): the token agents launched through the file present.
 */
async function upGateway(
  io: CommandIo,
  path: string,
  fleet: Fleet,
  flags: readonly string[],
  listen: string | undefined,
): Promise<number> {
  const section = fleet.gateway;
  let env = io.env;
  if ((io.env['SVC_API_TOKEN'] ?? '') === '' && section?.ownTokenEnv === true) {
    const token = io.env[section.tokenEnv] || (await fleetDotenv(path))[section.tokenEnv];
    if (token !== undefined && token !== '') {
      env = { ...io.env, SVC_API_TOKEN: token };
    }
  }
  const gateway = await import('../gateway/command.ts');
  return gateway.run({
    ...io,
    env,
    argv: [
      '--fleet',
      path,
      '--listen',
      listen ?? upListenAddress(section?.url, thisMachine()),
      ...flags,
    ],
  });
}

/** A gateway-only flag given where svc up runs no gateway, refused naming what it would do. */
function refuseGatewayFlags(given: Readonly<Record<string, unknown>>, instead: string): void {
  const flag = GATEWAY_ONLY.find((name) => given[name] !== undefined);
  if (flag !== undefined) {
    throw new SvcError(
      'ERR_USAGE',
      `--${flag} is for the gateway svc up runs beside a fleet file with a local node (kind: local); ${instead}`,
    );
  }
}

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'up',
    OPTIONS,
    io.argv,
    Number.POSITIVE_INFINITY,
  );
  const level = values['log-level'];
  if (level !== undefined) {
    parseLogLevel(level, '--log-level');
  }
  const levelFlag = level === undefined ? [] : ['--log-level', level];
  const fleetPath = resolve(io.cwd, values.fleet ?? 'fleet.yaml');
  // An explicit --fleet never falls back to a Svcfile: a missing one is loadFleet's refusal.
  if (values.fleet !== undefined || (await exists(fleetPath))) {
    // docs/design.md D24: only the kinds matter here; the command run checks the tokens it needs.
    const parsed = await loadFleet(fleetPath, io.env, 'lenient');
    if (parsed.nodes.some((node) => node.kind === 'local')) {
      if (positionals.length > 0) {
        throw new SvcError(
          'ERR_USAGE',
          `${fleetPath} has local nodes, so svc up runs its gateway for the whole fleet and takes no node names; start one node with svc fleet start <node>`,
        );
      }
      const wake = values['wake-timeout'];
      const flags = [...(wake === undefined ? [] : ['--wake-timeout', wake]), ...levelFlag];
      return upGateway(io, fleetPath, parsed, flags, values.listen);
    }
    refuseGatewayFlags(
      values,
      `${fleetPath} has none, so svc up is svc fleet start there (svc gateway runs its gateway)`,
    );
    const fleet = await import('../fleet/command.ts');
    return fleet.run({
      ...io,
      // svc fleet has no --log-level: the variable it reads, which the flag overrides.
      env: level === undefined ? io.env : { ...io.env, SVC_LOG_LEVEL: level },
      argv: [
        'start',
        '--fleet',
        fleetPath,
        ...(positionals.length === 0 ? ['--all'] : positionals),
      ],
    });
  }
  refuseGatewayFlags(values, `there is no fleet.yaml in ${io.cwd} (name one with -f <path>)`);
  if (positionals.length > 1) {
    throw new SvcError(
      'ERR_USAGE',
      `svc up takes node names only beside a fleet.yaml, and there is none in ${io.cwd}; without one it takes one Svcfile target, not ${String(positionals.length)}`,
    );
  }
  const alias = io.env['SVC_ALIAS'] ?? '';
  if (positionals.length === 0 && alias === '' && !(await exists(join(io.cwd, SVCFILE)))) {
    // Both things svc up looks for, not only serve's Svcfile.
    throw new SvcError(
      'ERR_PROJECT_NOT_FOUND',
      `no fleet.yaml or ${SVCFILE} in ${io.cwd}: run svc up beside a fleet file (or pass -f <path>), or pass a ${SVCFILE} path, a directory, an alias or a URL (svc up <target>), or set SVC_ALIAS`,
    );
  }
  const serve = await import('../serve/command.ts');
  return serve.run({ ...io, argv: [...positionals, ...levelFlag] });
}
