/**
 * Where `svc code` points the agent, from the fleet file and an optional project file (I/O at
 * this edge; the decisions are agent-target.ts's): through the gateway section with the project's
 * model, through the gateway as a generic provider listing GET /v1/models, or at one node's engine.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';

import { request } from 'undici';

import { SvcError } from '../core/errors.ts';
import type { NodeDriver } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetGateway, FleetNode, Variables } from '../core/fleet/file/fleet-file.ts';
import { engineTarget } from '../core/fleet/routing/engine-target.ts';
import { SVCFILE } from '../core/project/load.ts';
import type { OpenedProject } from '../core/project/open-project.ts';
import { type ModelFacts, projectFacts, refuseNonChat } from './agent-sizing.ts';
import {
  agentBaseUrl,
  type AgentKey,
  type AgentTarget,
  checkModel,
  gatewayKey,
  type ListedModel,
  listedModelsOf,
  type ModelLimits,
  nodeEngineKey,
} from './agent-target.ts';
import { type PropsClient, runningWindow } from './engine-window.ts';
import { withRunning } from './running-windows.ts';

/** The model a project file names for agents: its ALIAS, else its MODEL (docs/design.md D14). */
export function projectModel(project: OpenedProject): string | undefined {
  return project.project.alias?.value ?? project.project.model?.value;
}

/** The Svcfile in a directory, if one is there (spec §4.2: else the generic provider). */
export async function svcfileIn(directory: string): Promise<string | undefined> {
  const path = join(directory, SVCFILE);
  try {
    return (await stat(path)).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

async function listModels(baseUrl: string, key: AgentKey | undefined): Promise<ListedModel[]> {
  const url = `${baseUrl}/models`;
  let reply;
  try {
    reply = await request(url, {
      signal: AbortSignal.timeout(15_000),
      headers: key === undefined ? {} : { authorization: `Bearer ${key.value}` },
    });
  } catch (error) {
    throw new SvcError(
      'ERR_UPSTREAM',
      `cannot list the gateway's models at ${url}: ${(error as Error).message}`,
    );
  }
  const text = await reply.body.text();
  if (reply.statusCode !== 200) {
    const hint = reply.statusCode === 401 ? ' (the gateway refused the token)' : '';
    throw new SvcError('ERR_UPSTREAM', `GET ${url} answered HTTP ${reply.statusCode}${hint}`);
  }
  try {
    return listedModelsOf(JSON.parse(text));
  } catch {
    throw new SvcError('ERR_UPSTREAM', `GET ${url} answered something other than JSON`);
  }
}

function requireGateway(fleet: Fleet): FleetGateway {
  if (fleet.gateway === undefined) {
    throw new SvcError(
      'ERR_FLEET',
      `${fleet.path} has no gateway section: add one (gateway: {url: http://<gateway host>:4000}), or pass --node <name> to use one node's engine`,
    );
  }
  return fleet.gateway;
}

export interface GatewayInputs {
  readonly fleet: Fleet;
  readonly fleetDotenv: Variables;
  readonly env: Variables;
  readonly project?: { readonly opened: OpenedProject; readonly path: string };
  /** `--model`: checked against GET /v1/models. */
  readonly model?: string;
  /** Asks the user for one of the listed models (the picker), when svc may ask. */
  readonly choose?: (models: readonly ListedModel[]) => Promise<string>;
  /** What the fleet's own Svcfiles say of each served name (fleet-models.ts), read when listing. */
  readonly facts?: () => Promise<ReadonlyMap<string, ModelFacts>>;
  /** What the running engines say of their window (running-windows.ts); it wins over `facts`. */
  readonly running?: () => Promise<ReadonlyMap<string, ModelLimits>>;
}

/** Through the gateway section (spec §4.2 last paragraph). */
export async function gatewayTarget(inputs: GatewayInputs): Promise<AgentTarget> {
  const gateway = requireGateway(inputs.fleet);
  const baseUrl = agentBaseUrl(gateway.url);
  const { project } = inputs;
  // Credential order: ENV line > process env > .env beside the project file (all merged in
  // project.opened.env by projectEnvironment), then the .env beside the fleet file.
  const key = gatewayKey(
    gateway,
    [project?.opened.env ?? inputs.env, inputs.fleetDotenv],
    project === undefined
      ? `the .env beside ${inputs.fleet.path}`
      : `the .env beside ${project.path}, or an ENV line in it`,
  );
  const model = project === undefined ? undefined : projectModel(project.opened);
  if (project !== undefined && model !== undefined && inputs.model === undefined) {
    const facts = projectFacts(project.opened);
    refuseNonChat(model, facts, project.path);
    const running = (await inputs.running?.())?.get(model);
    return {
      providerId: 'svc',
      label: `svc gateway (${gateway.name})`,
      baseUrl,
      models: [model],
      defaultModel: model,
      ...(key === undefined ? {} : { key }),
      limits: { [model]: withRunning(facts.limits, running) ?? facts.limits },
    };
  }
  const facts = (await inputs.facts?.()) ?? new Map<string, ModelFacts>();
  const every = await listModels(baseUrl, key);
  // Only models that chat are offered (docs/agents.md "Which models are offered").
  const listed = every.filter((entry) => facts.get(entry.id)?.nonChat === undefined);
  const ids = listed.map((entry) => entry.id);
  let chosen = inputs.model;
  if (chosen !== undefined) {
    const named = facts.get(chosen);
    if (named !== undefined) {
      refuseNonChat(chosen, named, "its node's Svcfile");
    }
    checkModel(chosen, ids, `the gateway (GET ${baseUrl}/models)`);
  } else if (inputs.choose !== undefined && listed.length > 0) {
    chosen = await inputs.choose(listed);
  }
  const running = (await inputs.running?.()) ?? new Map<string, ModelLimits>();
  const limits = ids.flatMap((id) => {
    const known = withRunning(facts.get(id)?.limits, running.get(id));
    return known === undefined ? [] : [[id, known] as const];
  });
  return {
    providerId: gateway.name,
    label: `Gateway (${gateway.name})`,
    baseUrl,
    models: ids,
    ...(chosen === undefined ? {} : { defaultModel: chosen }),
    ...(key === undefined ? {} : { key }),
    ...(limits.length === 0 ? {} : { limits: Object.fromEntries(limits) }),
  };
}

export interface NodeInputs {
  readonly fleet: Fleet;
  /** `--node`: the node whose engine the agent is pointed at. */
  readonly name: string;
  readonly env: Variables;
  /** `--model`: checked against what the node serves. */
  readonly model?: string;
  /**
   * How the node is asked: its kind's driver (docs/design.md D21), never a kind's client directly.
   */
  readonly driver: Pick<NodeDriver, 'status'>;
  /** Reads the running engine's `/props` for its real window (engine-window.ts); none asks nothing. */
  readonly props?: PropsClient;
}

/** The first variable the node's own settings name that is set nowhere, with its field. */
function unsetVariable(node: FleetNode): { variable: string; field: string } | undefined {
  if (node.kind === 'daemon' && node.tokenEnv !== undefined && node.token === undefined) {
    return { variable: node.tokenEnv, field: 'tokenEnv' };
  }
  if (node.engineTokenEnv !== undefined && node.engineKey === undefined) {
    return { variable: node.engineTokenEnv, field: 'engineTokenEnv' };
  }
  return undefined;
}

/** At one node's engine: its published address and its engine key. */
export async function nodeTarget(inputs: NodeInputs): Promise<AgentTarget> {
  const { fleet, name, env, model: wanted, driver, props } = inputs;
  const node = fleet.nodes.find((candidate) => candidate.name === name);
  if (node === undefined) {
    throw new SvcError(
      'ERR_USAGE',
      `--node "${name}" is not in ${fleet.path} (nodes: ${fleet.nodes.map((entry) => entry.name).join(', ')})`,
    );
  }
  // The fleet was read leniently (docs/design.md D24); this node's own variables must be set.
  const unset = unsetVariable(node);
  if (unset !== undefined) {
    throw new SvcError(
      'ERR_FLEET',
      `${unset.variable} is not set (node "${node.name}", ${unset.field}): export it, or put it in the .env beside ${fleet.path}`,
    );
  }
  const reply = await driver.status(node);
  if (!reply.ok) {
    throw new SvcError('ERR_UPSTREAM', `node "${node.name}" ${reply.outcome}: ${reply.detail}`);
  }
  const status = reply.value;
  const model = status.servedName ?? status.model;
  if (status.state !== 'running' || model === undefined) {
    throw new SvcError(
      'ERR_USAGE',
      `node "${node.name}" is ${status.state}, serving nothing: start it with svc fleet start ${node.name}, or use the gateway (drop --node)`,
    );
  }
  if (wanted !== undefined) {
    checkModel(wanted, [model], `node "${node.name}"`);
  }
  const target = engineTarget({ node, ok: true, status }, fleet.path);
  if ('unusable' in target) {
    throw new SvcError('ERR_USAGE', target.unusable);
  }
  const key = nodeEngineKey(node, status.runner, target.key, env);
  // The engine runs: what it says one request may hold wins over any flag (engine-window.ts).
  const window = props === undefined ? undefined : await runningWindow(target.baseUrl, key, props);
  return {
    providerId: node.name,
    label: `svc node ${node.name}`,
    baseUrl: target.baseUrl,
    models: [model],
    defaultModel: model,
    ...(key === undefined ? {} : { key }),
    ...(window === undefined ? {} : { limits: { [model]: window } }),
  };
}
