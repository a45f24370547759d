/**
 * `svc code [target] [--agent opencode|pi] [-f fleet.yaml] [--node <name>] [-- agent args…]`:
 * launches a coding agent already configured for the fleet (spec §4.2 last paragraph), in the
 * foreground with the user's terminal, and exits with the agent's status. The user's own agent
 * configuration is never edited (spec §1.1): see opencode.ts and pi.ts for how each gets its own.
 */
import { join, resolve } from 'node:path';

import type { CommandIo } from '../commands.ts';
import { parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import { SvcError } from '../core/errors.ts';
import { configDirFor } from '../core/paths.ts';
import { readAliases, readHarness, registryPath } from '../core/project/aliases.ts';
import { describeOrigin } from '../core/project/load.ts';
import { type OpenedProject, openProject } from '../core/project/open-project.ts';
import { fleetDotenv, loadFleet } from '../gateway/load-fleet.ts';
import type { AgentTarget } from './agent-target.ts';
import { pickAgent } from './agents.ts';
import { gatewayTarget, nodeTarget, svcfileBeside } from './resolve-target.ts';
import { runAgent } from './run-agent.ts';

const OPTIONS = {
  agent: { type: 'string', value: '<name>', description: 'opencode (default) or pi' },
  fleet: {
    type: 'string',
    short: 'f',
    value: '<path>',
    description: 'Fleet file (default ./fleet.yaml)',
  },
  node: {
    type: 'string',
    value: '<name>',
    description: "Point the agent at this node's engine instead of the gateway",
  },
} as const;

export const help = renderCommandHelp(
  ['svc code [target] [--agent opencode|pi] [-f fleet.yaml] [--node <name>] [-- agent args…]'],
  [
    "Launches a coding agent configured for the fleet file's gateway (or one node's engine),",
    "in the foreground, and exits with the agent's status. target names a Svcfile as for",
    'svc serve (path, directory, alias or URL); its ALIAS (else MODEL) is the default model.',
    'With none, SVC_ALIAS or a Svcfile beside the fleet file; else every model the gateway',
    "lists. Arguments after -- go to the agent. The agent's own config is never edited.",
  ].join('\n'),
  OPTIONS,
);

async function openTarget(
  target: string | undefined,
  fleetPath: string,
  io: CommandIo,
  configDir: string,
): Promise<{ opened: OpenedProject; path: string } | undefined> {
  const alias = io.env['SVC_ALIAS'];
  const beside =
    target === undefined && (alias === undefined || alias === '')
      ? await svcfileBeside(fleetPath)
      : undefined;
  if (target === undefined && (alias === undefined || alias === '') && beside === undefined) {
    return undefined;
  }
  const opened = await openProject(target ?? beside, {
    cwd: io.cwd,
    env: io.env,
    aliases: () => readAliases(configDir),
    supervised: false,
  });
  for (const note of opened.notes) {
    io.stderr.write(`${note}\n`);
  }
  return { opened, path: describeOrigin(opened.origin) };
}

function describeTarget(agent: string, target: AgentTarget): string {
  const model =
    target.defaultModel === undefined
      ? `${target.models.length} model${target.models.length === 1 ? '' : 's'} listed, none chosen`
      : `model ${target.defaultModel}`;
  return `svc code: ${agent} → ${target.baseUrl} (${target.label}, ${model})\n`;
}

export async function run(io: CommandIo): Promise<number> {
  const end = io.argv.indexOf('--');
  const own = end < 0 ? io.argv : io.argv.slice(0, end);
  const agentArgs = end < 0 ? [] : io.argv.slice(end + 1);
  const { values, positionals } = parseCommandArgs('code', OPTIONS, own, 1);
  const configDir = configDirFor(io.env, io.cwd);
  const agent = pickAgent(values.agent, await readHarness(configDir), registryPath(configDir));
  const fleetPath = resolve(io.cwd, values.fleet ?? 'fleet.yaml');
  // GUIDE D24: only the gateway section (or the one --node) matters, so other nodes' unset
  // token variables are no error here.
  const fleet = await loadFleet(fleetPath, io.env, 'lenient');

  let target: AgentTarget;
  if (values.node !== undefined && positionals[0] !== undefined) {
    throw new SvcError(
      'ERR_USAGE',
      `--node points the agent at that node's engine and its model; drop "${positionals[0]}", or drop --node to go through the gateway with that Svcfile's model`,
    );
  }
  if (values.node !== undefined) {
    target = await nodeTarget(fleet, values.node, io.env);
  } else {
    const project = await openTarget(positionals[0], fleetPath, io, configDir);
    target = await gatewayTarget({
      fleet,
      fleetDotenv: await fleetDotenv(fleetPath),
      env: io.env,
      ...(project === undefined ? {} : { project }),
    });
  }
  io.stderr.write(describeTarget(agent.name, target));
  const plan = agent.plan(target, { privateDir: join(configDir, 'agents', agent.name) });
  return runAgent(agent.command, plan, agentArgs, io.env);
}
