/**
 * `svc code [target] [--agent <name>] [--model <id>] [-y] [--config [--write <path>]] [--list]
 * [-f fleet.yaml] [--node <name>] [-- agent args…]`: launches a coding agent already configured
 * for the fleet (spec §4.2 last paragraph), in the foreground with the user's terminal, and exits
 * with the agent's status; or prints (`--config`) what it would hand the agent. The user's own
 * agent configuration is never edited (spec §1.1): each agent gets its own (opencode.ts, pi.ts,
 * claude.ts, codex.ts).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

import { parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import type { CommandIo } from '../core/command.ts';
import { findOnPath } from '../core/engines/locate-binary.ts';
import { SvcError } from '../core/errors.ts';
import { fleetDriver } from '../core/fleet/drivers/by-kind.ts';
import { fleetDotenv, loadFleet } from '../core/fleet/load/load-fleet.ts';
import { writeFileAtomic } from '../core/fs/atomic-write.ts';
import { configDirFor } from '../core/paths.ts';
import { readAliases, readHarness, registryPath } from '../core/project/aliases.ts';
import { describeOrigin } from '../core/project/load.ts';
import { type OpenedProject, openProject } from '../core/project/open-project.ts';
import { describeTarget, renderAgentConfig } from './agent-config.ts';
import type { AgentSpec } from './agent-plan.ts';
import { firstPromptWarning } from './agent-sizing.ts';
import { type AgentTarget, listIds } from './agent-target.ts';
import { AGENTS, DEFAULT_AGENT, pickAgent, renderAgentList } from './agents.ts';
import { httpProps } from './engine-window.ts';
import { fleetModelFacts } from './fleet-models.ts';
import { pickModel } from './model-picker.ts';
import { gatewayTarget, nodeTarget, svcfileIn } from './resolve-target.ts';
import { runAgent } from './run-agent.ts';
import { runningWindows } from './running-windows.ts';

const AGENT_NAMES = AGENTS.map((agent) => agent.name).join('|');

const OPTIONS = {
  agent: {
    type: 'string',
    value: '<name>',
    description: `${AGENT_NAMES} (default opencode, or config.json's harness)`,
  },
  model: {
    type: 'string',
    value: '<id>',
    description: 'The model, one the gateway lists (GET /v1/models); wins over the project file',
  },
  yes: {
    type: 'boolean',
    short: 'y',
    description:
      "Never ask: with no model named, the agent's own choice, or an error for claude/codex",
  },
  config: {
    type: 'boolean',
    description:
      'Print the configuration the agent would get (the key as its variable); launch nothing',
  },
  write: {
    type: 'string',
    value: '<path>',
    description: "With --config: also write the agent's config document (a new file) to <path>",
  },
  list: { type: 'boolean', description: 'List the agents svc can launch and which are installed' },
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
  [
    `svc code [target] [--agent ${AGENT_NAMES}] [--model <id>] [-y] [-f fleet.yaml] [--node <name>] [-- agent args…]`,
    'svc code [target] --config [--write <path>] [--agent <name>] [--model <id>] …',
    'svc code --list',
  ],
  [
    "Launches a coding agent configured for the fleet file's gateway (or one node's engine),",
    "in the foreground, and exits with the agent's status. target names a Svcfile as for",
    'svc serve (path, directory, alias or URL); its ALIAS (else MODEL) is the default model.',
    'With none, SVC_ALIAS, the Svcfile in the current directory, or one beside the fleet file;',
    'else every model the gateway lists, and on a terminal a picker asks which one (not with',
    "--yes). Arguments after -- go to the agent. The agent's own config is never edited.",
  ].join('\n'),
  OPTIONS,
);

/**
 * The project as svc serve and svc up find it (the argument, SVC_ALIAS, the Svcfile in the
 * current directory), then the Svcfile beside the fleet file; none of them: no project.
 */
async function openTarget(
  target: string | undefined,
  fleetPath: string,
  io: CommandIo,
  configDir: string,
): Promise<{ opened: OpenedProject; path: string } | undefined> {
  const alias = io.env['SVC_ALIAS'];
  const named = target !== undefined || (alias !== undefined && alias !== '');
  // Undefined opens what serve would: SVC_ALIAS, else the current directory's Svcfile.
  const here = named || (await svcfileIn(io.cwd)) !== undefined;
  const beside = here ? undefined : await svcfileIn(dirname(fleetPath));
  if (!here && beside === undefined) {
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

type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>['values'];

/** spec §4.2 last paragraph, plus `--model` and the picker. */
async function resolveTarget(
  io: CommandIo,
  values: Values,
  positional: string | undefined,
  agent: AgentSpec,
  configDir: string,
): Promise<AgentTarget> {
  const fleetPath = resolve(io.cwd, values.fleet ?? 'fleet.yaml');
  // docs/design.md D24: only the gateway section (or the one --node) matters, so other nodes' unset
  // token variables are no error here.
  const fleet = await loadFleet(fleetPath, io.env, 'lenient');
  if (values.node !== undefined && positional !== undefined) {
    throw new SvcError(
      'ERR_USAGE',
      `--node points the agent at that node's engine and its model; drop "${positional}", or drop --node to go through the gateway with that Svcfile's model`,
    );
  }
  if (values.node !== undefined) {
    return nodeTarget({
      fleet,
      name: values.node,
      env: io.env,
      ...(values.model === undefined ? {} : { model: values.model }),
      // docs/design.md D21: the node is asked through its kind's driver, whatever the kind.
      driver: fleetDriver({ fleet, configDir, env: io.env }),
      props: httpProps,
    });
  }
  const project = await openTarget(positional, fleetPath, io, configDir);
  // Ask only a person at a terminal who did not say --yes (off one, nobody could answer).
  const ask = values.yes !== true && io.stdin.isTTY && io.stderr.isTTY;
  return gatewayTarget({
    fleet,
    fleetDotenv: await fleetDotenv(fleetPath),
    env: io.env,
    ...(project === undefined ? {} : { project }),
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(ask ? { choose: (models) => pickModel(models, agent.name, io.stdin, io.stderr) } : {}),
    facts: () => fleetModelFacts(fleet, { configDir, env: io.env }),
    running: () =>
      runningWindows({
        fleet,
        env: io.env,
        driver: fleetDriver({ fleet, configDir, env: io.env }),
        props: httpProps,
      }),
  });
}

/** Claude Code and Codex default to models no fleet serves: refuse rather than launch at a 404. */
function requireModel(agent: AgentSpec, target: AgentTarget): void {
  if (agent.needsModel && target.defaultModel === undefined) {
    throw new SvcError(
      'ERR_USAGE',
      `${agent.name} needs a model: pass --model <id> (the gateway lists ${listIds(target.models)}), name a Svcfile, or run on a terminal without --yes to pick one`,
    );
  }
}

async function writeDocument(path: string, content: string): Promise<void> {
  // Only where the user names it, and never over a file of theirs (nothing is lost).
  if (existsSync(path)) {
    throw new SvcError(
      'ERR_USAGE',
      `--write ${path}: the file exists; remove it or name a new path`,
    );
  }
  await writeFileAtomic(path, content);
}

export async function run(io: CommandIo): Promise<number> {
  const end = io.argv.indexOf('--');
  const own = end < 0 ? io.argv : io.argv.slice(0, end);
  const agentArgs = end < 0 ? [] : io.argv.slice(end + 1);
  const { values, positionals } = parseCommandArgs('code', OPTIONS, own, 1);
  const configDir = configDirFor(io.env, io.cwd);
  const harness = await readHarness(configDir);
  if (values.list === true) {
    io.stdout.write(
      renderAgentList((command) => findOnPath(command, io.env['PATH']), harness ?? DEFAULT_AGENT),
    );
    return 0;
  }
  if (values.write !== undefined && values.config !== true) {
    throw new SvcError('ERR_USAGE', '--write goes with --config: svc code --config --write <path>');
  }
  const agent = pickAgent(values.agent, harness, registryPath(configDir));
  const target = await resolveTarget(io, values, positionals[0], agent, configDir);
  requireModel(agent, target);
  const model = target.defaultModel;
  const warning =
    model === undefined ? undefined : firstPromptWarning(agent, model, target.limits?.[model]);
  if (warning !== undefined) {
    io.stderr.write(`${warning}\n`);
  }
  const plan = agent.plan(target, { privateDir: join(configDir, 'agents', agent.name) });
  if (values.config === true) {
    io.stdout.write(renderAgentConfig(agent, plan, target));
    if (values.write !== undefined) {
      const path = resolve(io.cwd, values.write);
      await writeDocument(path, plan.document.content);
      io.stderr.write(`svc code: wrote ${plan.document.name} for ${agent.name} to ${path}\n`);
    }
    return 0;
  }
  io.stderr.write(`svc code: ${describeTarget(agent.name, target)}\n`);
  return runAgent(agent, plan, agentArgs, io.env);
}
