/**
 * `svc fleet <verb>`: the nodes a fleet file lists, each driven through its kind's driver
 * (docs/design.md D21, node-driver.ts). This module parses the verb and its flags, loads the fleet
 * file and hands over to the verb's own module; every verb keeps `-f, --fleet` except `logs`, where
 * `-f` follows (docs/design.md D24). The fleet file is read leniently: a node's unset token
 * variable is that node's problem (a row or a line saying so), never the whole command's.
 */
import { resolve } from 'node:path';

import { type OptionTable, parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import { closestName } from '../core/closest-name.ts';
import type { CommandIo } from '../core/command.ts';
import { SvcError } from '../core/errors.ts';
import { fleetDriver, fleetGatewayAct } from '../core/fleet/drivers/by-kind.ts';
import type { Fleet } from '../core/fleet/file/fleet-file.ts';
import { fleetDotenv, loadFleet, sourceProblem } from '../core/fleet/load/load-fleet.ts';
import { configDirFor } from '../core/paths.ts';
import { deployNodes } from './deploy.ts';
import { askGateway } from './gateway-readout.ts';
import { FLEET_VERB_OPTIONS, FLEET_VERBS, type FleetVerb } from './options.ts';
import { selectNodes } from './select.ts';
import { fleetAct } from './start-stop.ts';
import { fleetStatus, statusText, withGateway } from './status.ts';

export const help = renderCommandHelp(
  [
    'svc fleet status [node…] [-f fleet.yaml] [--json]',
    'svc fleet start <node…> | --all [--force] [-f fleet.yaml] [--json]',
    'svc fleet stop <node…> | --all [--force] [-f fleet.yaml] [--json]',
    'svc fleet deploy <node…> | --all [-f fleet.yaml] [--json]',
    'svc fleet metrics [node…] [-w] [-f fleet.yaml] [--json]',
    'svc fleet logs [node…] [-f] [--fleet fleet.yaml] [--json]',
    'svc fleet route <model> [-f fleet.yaml] [--json]',
    'svc fleet usage [-f fleet.yaml] [--json]',
    'svc fleet activity [-f] [--limit N] [--fleet fleet.yaml] [--json]',
    'svc fleet dashboard [-f fleet.yaml]',
  ],
  'Shows and drives the nodes a fleet file lists: daemons and remote environments. In `fleet logs` and\n`fleet activity`, -f follows and the fleet file is named with --fleet.',
  {
    fleet: {
      type: 'string',
      short: 'f',
      value: '<path>',
      description: 'Fleet file (default ./fleet.yaml)',
    },
    all: { type: 'boolean', description: 'start / stop / deploy: every node' },
    force: {
      type: 'boolean',
      description: 'start: stop a busy member of a full group; stop: even with requests in flight',
    },
    watch: { type: 'boolean', short: 'w', description: 'metrics: redraw every 2 s until Ctrl+C' },
    follow: {
      type: 'boolean',
      description: 'logs, activity (-f): keep printing new lines until Ctrl+C',
    },
    limit: { type: 'string', value: '<n>', description: 'activity: how many of the last requests' },
    json: { type: 'boolean', description: 'Print JSON instead of a table or lines' },
  } satisfies OptionTable,
);

/** The node kinds whose wake source is a Svcfile beside the fleet file (docs/design.md D21). */
const SVCFILE_KINDS: ReadonlySet<string> = new Set(['daemon', 'local']);

/** Verbs that name no node. */
const NO_NODES: ReadonlySet<FleetVerb> = new Set(['dashboard', 'usage', 'activity']);

function isVerb(verb: string | undefined): verb is FleetVerb {
  return (FLEET_VERBS as readonly (string | undefined)[]).includes(verb);
}

export async function run(io: CommandIo): Promise<number> {
  const [verb, ...rest] = io.argv;
  if (!isVerb(verb)) {
    // docs/design.md D20: a misspelt verb is refused naming the closest one.
    const near = verb === undefined ? undefined : closestName(verb, FLEET_VERBS);
    throw new SvcError(
      'ERR_USAGE',
      `svc fleet takes ${FLEET_VERBS.join(', ')}${verb === undefined ? '' : `, not "${verb}"`}${near === undefined ? '' : `: did you mean "${near}"?`} (see svc fleet --help)`,
    );
  }
  const options = FLEET_VERB_OPTIONS[verb];
  // The hint names `svc fleet --help`: one help text lists every verb's flags.
  const { values, positionals } = parseCommandArgs(
    'fleet',
    options,
    rest,
    verb === 'route' ? 1 : NO_NODES.has(verb) ? 0 : Number.POSITIVE_INFINITY,
  );
  const flag = (name: string): boolean => (values as Record<string, unknown>)[name] === true;
  const fleetPath = (values as Record<string, unknown>)['fleet'];
  const fleet: Fleet = await loadFleet(
    resolve(io.cwd, typeof fleetPath === 'string' ? fleetPath : 'fleet.yaml'),
    io.env,
    'lenient',
  );
  const configDir = configDirFor(io.env, io.cwd);
  const json = flag('json');
  const write = (text: string): void => {
    io.stdout.write(text);
  };
  // docs/design.md D21: each node through its kind's driver.
  const context = { fleet, configDir, env: io.env };
  const driver = fleetDriver(context);
  const gatewayAct = fleetGatewayAct(context);

  switch (verb) {
    case 'status': {
      // The gateway is asked beside the nodes: its queue and idle stops (docs/design.md D25, D26).
      const [nodeRows, gateway] = await Promise.all([
        fleetStatus(fleet, selectNodes(fleet, { names: positionals }), {
          driver,
          // A daemon node's Svcfile source is checked without parsing it: status stays cheap.
          // Other kinds have no Svcfile to check.
          sourceProblem: (node) =>
            SVCFILE_KINDS.has(node.kind)
              ? sourceProblem(fleet, node, configDir)
              : Promise.resolve(undefined),
        }),
        askGateway(fleet, [io.env, await fleetDotenv(fleet.path)]),
      ]);
      const rows = withGateway(nodeRows, gateway);
      const locals = new Set(fleet.nodes.filter((n) => n.kind === 'local').map((n) => n.name));
      write(json ? `${JSON.stringify(rows, null, 2)}\n` : statusText(rows, gateway, locals));
      return 0;
    }
    case 'start':
    case 'stop':
    case 'deploy': {
      const nodes = selectNodes(fleet, {
        names: positionals,
        all: flag('all'),
        required: { verb },
      });
      if (verb === 'deploy') {
        return deployNodes(context, nodes, json, write);
      }
      const results = await fleetAct(verb, fleet, nodes, {
        driver,
        force: flag('force'),
        // docs/design.md D33: a group member's start goes through the gateway the file names.
        ...(gatewayAct === undefined ? {} : { gatewayAct }),
        print: (line) => {
          if (!json) {
            write(`${line}\n`);
          }
        },
      });
      if (json) {
        write(`${JSON.stringify(results, null, 2)}\n`);
      }
      return results.some((result) => result.outcome === 'failed') ? 1 : 0;
    }
    case 'route': {
      const { runRoute } = await import('./route-command.ts');
      return runRoute({
        fleet,
        model: positionals[0] ?? '',
        json,
        write,
        driver,
        variables: [io.env, await fleetDotenv(fleet.path)],
      });
    }
    case 'usage': {
      const { runUsage } = await import('./usage-command.ts');
      const variables = [io.env, await fleetDotenv(fleet.path)];
      return runUsage({ fleet, json, write, variables });
    }
    case 'activity': {
      const { runActivity } = await import('./activity-command.ts');
      const limit = (values as Record<string, unknown>)['limit'];
      return runActivity({
        fleet,
        json,
        write,
        follow: flag('follow'),
        limit: typeof limit === 'string' ? limit : undefined,
        variables: [io.env, await fleetDotenv(fleet.path)],
      });
    }
    case 'metrics': {
      const { runMetrics } = await import('./metrics-command.ts');
      return runMetrics({
        fleet,
        nodes: selectNodes(fleet, { names: positionals }),
        json,
        watch: flag('watch'),
        write,
        driver,
        tty: io.stdout.isTTY,
      });
    }
    case 'logs': {
      const { runLogs } = await import('./logs-command.ts');
      return runLogs({
        fleet,
        nodes: selectNodes(fleet, { names: positionals }),
        json,
        follow: flag('follow'),
        write,
        warn: (line) => io.stderr.write(`${line}\n`),
        driver,
      });
    }
    case 'dashboard': {
      const { runDashboard } = await import('./dashboard/dashboard-command.ts');
      return runDashboard({
        fleet,
        io,
        driver,
        ...(gatewayAct === undefined ? {} : { gatewayAct }),
      });
    }
  }
}
