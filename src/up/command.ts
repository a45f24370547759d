/**
 * `svc up [node…]`: one word for "bring it up here", as the original had (docs/cli.md, "svc up").
 * With a fleet.yaml in the working directory it is `svc fleet start` of the named nodes, or of
 * every node when none is named; without one it is `svc serve` with the same target rules (a path,
 * a directory, an alias, a URL, SVC_ALIAS, else ./Svcfile). A fleet.yaml with a local node
 * (GUIDE D27) is the daemon-less case: the gateway itself runs in the foreground, supervising
 * those engines. It only dispatches: each command keeps its own behaviour, output and exit status.
 */
import { access } from 'node:fs/promises';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';

import { parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import type { CommandIo } from '../core/command.ts';
import { SvcError } from '../core/errors.ts';
import type { Fleet } from '../core/fleet/file/fleet-file.ts';
import { fleetDotenv, loadFleet } from '../core/fleet/load/load-fleet.ts';
import { upListenAddress } from './up-listen.ts';

const OPTIONS = {} as const;

export const help = renderCommandHelp(
  ['svc up [node…]', 'svc up [target]'],
  [
    'With a fleet.yaml in the current directory: starts the named nodes, or every node when none',
    'is named (svc fleet start <node…> | --all); when it has a local node (kind: local), runs the',
    "gateway in the foreground instead, at the gateway section's address when that is this",
    'machine, else 127.0.0.1:4000, starting local engines on demand; Ctrl+C stops them and it.',
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
async function upGateway(io: CommandIo, path: string, fleet: Fleet): Promise<number> {
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
    argv: ['--fleet', path, '--listen', upListenAddress(section?.url, thisMachine())],
  });
}

export async function run(io: CommandIo): Promise<number> {
  const { positionals } = parseCommandArgs('up', OPTIONS, io.argv, Number.POSITIVE_INFINITY);
  const fleetPath = join(io.cwd, 'fleet.yaml');
  if (await exists(fleetPath)) {
    // GUIDE D24: only the kinds matter here; the command run checks the tokens it needs.
    const parsed = await loadFleet(fleetPath, io.env, 'lenient');
    if (parsed.nodes.some((node) => node.kind === 'local')) {
      if (positionals.length > 0) {
        throw new SvcError(
          'ERR_USAGE',
          `${fleetPath} has local nodes, so svc up runs its gateway for the whole fleet and takes no node names; start one node with svc fleet start <node>`,
        );
      }
      return upGateway(io, fleetPath, parsed);
    }
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
