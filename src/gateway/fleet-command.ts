/**
 * `svc fleet status | start <node…> | stop <node…> | deploy <node…>`: the nodes a fleet file lists,
 * driven through their kind's driver. Status prints a table (a node that does not answer is a row,
 * not a failure); start sends each node the config its own Svcfile resolves to, with its engine
 * key (a remote node boots as deployed); deploy pushes a remote node's config to its environment.
 */
import { resolve } from 'node:path';

import type { CommandIo } from '../commands.ts';
import { parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import { closestName } from '../core/closest-name.ts';
import { SvcError } from '../core/errors.ts';
import { configDirFor } from '../core/paths.ts';
import { mapBounded } from './call-limiter.ts';
import { deployNodes } from './fleet-deploy.ts';
import { fleetDriver } from './fleet-drivers.ts';
import type { Fleet, FleetNode } from './fleet-file.ts';
import { loadFleet } from './load-fleet.ts';
import type { NodeStatus } from './node-driver.ts';
import { NODE_STATES_DEFAULTS } from './node-snapshot.ts';

const OPTIONS = {
  fleet: {
    type: 'string',
    short: 'f',
    value: '<path>',
    description: 'Fleet file (default ./fleet.yaml)',
  },
  all: { type: 'boolean', description: 'start / stop / deploy: every node' },
  json: { type: 'boolean', description: 'Print JSON instead of a table or lines' },
} as const;

export const help = renderCommandHelp(
  [
    'svc fleet status [-f fleet.yaml] [--json]',
    'svc fleet start <node…> | --all',
    'svc fleet stop <node…> | --all',
    'svc fleet deploy <node…> | --all',
  ],
  'Shows and drives the nodes a fleet file lists: daemons and remote environments.',
  OPTIONS,
);

function table(rows: readonly (readonly string[])[]): string {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function pick(fleet: Fleet, names: readonly string[], all: boolean, verb: string): FleetNode[] {
  if (all) {
    return [...fleet.nodes];
  }
  if (names.length === 0) {
    throw new SvcError(
      'ERR_USAGE',
      `name the nodes to ${verb}, or pass --all (nodes: ${fleet.nodes.map((node) => node.name).join(', ')})`,
    );
  }
  return names.map((name) => {
    const node = fleet.nodes.find((candidate) => candidate.name === name);
    if (node === undefined) {
      throw new SvcError(
        'ERR_USAGE',
        `no node named "${name}" in ${fleet.path} (nodes: ${fleet.nodes.map((entry) => entry.name).join(', ')})`,
      );
    }
    return node;
  });
}

/** What a node serves; a remote environment's retention deadline while it is ahead (spec §2.4). */
function servingText(status: NodeStatus): string {
  const serving = status.servedName ?? status.model ?? '';
  const retained =
    status.retainUntil !== undefined && Date.parse(status.retainUntil) > Date.now()
      ? `kept until ${status.retainUntil}`
      : '';
  return [serving, retained].filter((part) => part !== '').join('  ');
}

/** GUIDE D20: a misspelt verb is refused naming the closest one. */
function nearVerb(verb: string | undefined): string {
  const near =
    verb === undefined ? undefined : closestName(verb, ['status', 'start', 'stop', 'deploy']);
  return near === undefined ? '' : `: did you mean "${near}"?`;
}

export async function run(io: CommandIo): Promise<number> {
  const [verb, ...rest] = io.argv;
  if (verb !== 'status' && verb !== 'start' && verb !== 'stop' && verb !== 'deploy') {
    throw new SvcError(
      'ERR_USAGE',
      `svc fleet takes status, start, stop or deploy${verb === undefined ? '' : `, not "${verb}"`}${nearVerb(verb)} (see svc fleet --help)`,
    );
  }
  const { values, positionals } = parseCommandArgs(
    'fleet',
    OPTIONS,
    rest,
    verb === 'status' ? 0 : Number.POSITIVE_INFINITY,
  );
  const fleet = await loadFleet(resolve(io.cwd, values.fleet ?? 'fleet.yaml'), io.env);
  // GUIDE D21: each node through its kind's driver.
  const context = { fleet, configDir: configDirFor(io.env, io.cwd), env: io.env };
  const driver = fleetDriver(context);

  if (verb === 'status') {
    // The same fan-out bound as the gateway's, so a fleet of thousands stays within ulimit -n.
    const replies = await mapBounded(
      fleet.nodes,
      NODE_STATES_DEFAULTS.concurrency,
      async (node) => ({
        node,
        reply: await driver.status(node),
      }),
    );
    if (values.json === true) {
      io.stdout.write(
        `${JSON.stringify(
          replies.map(({ node, reply }) =>
            reply.ok
              ? { node: node.name, outcome: 'ok', status: reply.value }
              : { node: node.name, outcome: reply.outcome, error: reply.detail },
          ),
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    const rows = replies.map(({ node, reply }) =>
      reply.ok
        ? [node.name, reply.value.state, servingText(reply.value), reply.value.lastActiveAt ?? '']
        : [node.name, reply.outcome, reply.detail, ''],
    );
    io.stdout.write(`${table([['NODE', 'STATE', 'SERVING', 'LAST ACTIVE'], ...rows])}\n`);
    return 0;
  }

  const nodes = pick(fleet, positionals, values.all === true, verb);
  if (verb === 'deploy') {
    return deployNodes(context, nodes, values.json === true, (text) => io.stdout.write(text));
  }
  // GUIDE D17: a human line per node by default, one JSON array with --json.
  const results: {
    node: string;
    outcome: 'ok' | 'failed';
    state?: string;
    source?: string;
    error?: string;
  }[] = [];
  for (const node of nodes) {
    try {
      let source: string | undefined;
      let reply;
      if (verb === 'start') {
        const resolved = await driver.wakeSource(node);
        source = resolved.source;
        if (values.json !== true) {
          io.stdout.write(`${node.name}: using ${source}\n`);
        }
        reply = await driver.start(node, resolved);
      } else {
        reply = await driver.stop(node);
      }
      if (!reply.ok) {
        throw new Error(reply.detail);
      }
      results.push({
        node: node.name,
        outcome: 'ok',
        state: reply.value.state,
        ...(source === undefined ? {} : { source }),
      });
      if (values.json !== true) {
        io.stdout.write(`${node.name}  ${reply.value.state}\n`);
      }
    } catch (error) {
      results.push({ node: node.name, outcome: 'failed', error: (error as Error).message });
      if (values.json !== true) {
        io.stdout.write(`${node.name}  failed: ${(error as Error).message}\n`);
      }
    }
  }
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  }
  const failures = results.filter((result) => result.outcome === 'failed').length;
  return failures === 0 ? 0 : 1;
}
