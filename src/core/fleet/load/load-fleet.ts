/**
 * Reading a fleet file from disk with the `.env` beside it (token variables resolve from the
 * process environment first, then that file), and each daemon or local node's Svcfile source: its
 * `file:`, else an alias named after the node, else a `<name>/` directory beside the fleet file.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseEnv } from 'node:util';

import type { DeployConfig } from '../../contract/schemas.ts';
import type { EngineSpec } from '../../engines/engine-spec.ts';
import { SvcError } from '../../errors.ts';
import { aliasTarget, readAliases } from '../../project/aliases.ts';
import { deployConfigFromSpec } from '../../project/deploy-config-from-project.ts';
import { unwrap } from '../../project/diagnostics.ts';
import { originOf } from '../../project/load.ts';
import { type OpenedProject, openProject } from '../../project/open-project.ts';
import type { NodeSource } from '../drivers/node-driver.ts';
import {
  type Fleet,
  type FleetNode,
  type FleetSources,
  parseFleet,
  type Variables,
} from '../file/fleet-file.ts';
import type { CommandConfig } from '../file/model-name.ts';

export type { NodeSource } from '../drivers/node-driver.ts';

/** The `.env` beside a fleet file; none is an empty set. */
export async function fleetDotenv(path: string): Promise<Variables> {
  try {
    return parseEnv(await readFile(resolve(dirname(path), '.env'), 'utf8'));
  } catch {
    return {};
  }
}

export async function loadFleet(
  path: string,
  env: Variables,
  nodeTokens: FleetSources['nodeTokens'] = 'required',
): Promise<Fleet> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SvcError(
        'ERR_FLEET',
        `no fleet file at ${path}: create one listing your nodes, or pass --fleet <path>`,
      );
    }
    throw new SvcError(
      'ERR_FLEET',
      `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'read failed'})`,
    );
  }
  const dotenv = await fleetDotenv(path);
  return unwrap(parseFleet(text, path, { env, dotenv, nodeTokens }), 'ERR_FLEET');
}

/** Where a daemon node's Svcfile is (see the module comment), or why there is none. */
async function sourceOf(fleet: Fleet, node: FleetNode, configDir: string): Promise<string> {
  const base = dirname(fleet.path);
  if (node.file !== undefined) {
    return resolve(base, node.file);
  }
  const alias = aliasTarget(await readAliases(configDir), node.name);
  if (alias !== undefined) {
    return alias;
  }
  if ((await originOf(resolve(base, node.name), base)) !== undefined) {
    return resolve(base, node.name);
  }
  throw new SvcError(
    'ERR_FLEET',
    `node "${node.name}" names no Svcfile source: no file field, no alias named "${node.name}", and no ${node.name}/ directory beside ${fleet.path}`,
  );
}

async function openNodeSource(
  fleet: Fleet,
  node: FleetNode,
  context: { configDir: string; env: Variables },
): Promise<{ source: string; spec: EngineSpec; env: Record<string, string> }> {
  const { source, opened } = await openNodeProject(fleet, node, context);
  return { source, spec: opened.spec, env: opened.env };
}

/** A node's Svcfile source, opened as `svc serve` opens it for a supervised engine. */
export async function openNodeProject(
  fleet: Fleet,
  node: FleetNode,
  context: { configDir: string; env: Variables },
): Promise<{ source: string; opened: OpenedProject }> {
  const source = await sourceOf(fleet, node, context.configDir);
  const opened = await openProject(source, {
    cwd: dirname(fleet.path),
    env: context.env,
    aliases: () => readAliases(context.configDir),
    supervised: true,
  });
  return { source, opened };
}

/**
 * A local node's source (docs/design.md D27): its deploy config and the environment `svc serve`
 * would run the engine with from the same Svcfile, computed by the same code (openProject:
 * `context.env`, then the `.env` beside the Svcfile for what that leaves unset or empty, then its
 * ENV lines). What no deploy config can carry (`PROVIDER command`, ENGINE; docs/design.md D31, spec
 * §2.7) comes as the engine spec itself, which only the gateway's own supervisor runs.
 */
export async function localNodeSource(
  fleet: Fleet,
  node: FleetNode,
  context: { configDir: string; env: Variables },
): Promise<NodeSource> {
  const { source, spec, env } = await openNodeSource(fleet, node, context);
  if (spec.runner === 'command') {
    const config: CommandConfig = {
      runner: 'command',
      ...(spec.model === undefined ? {} : { modelId: spec.model }),
      ...(spec.alias === undefined ? {} : { servedModelName: spec.alias }),
    };
    return { source, config, spec, env };
  }
  // The config names the model for routing; the spec runs the ENGINE build (docs/design.md D31).
  const { binary, ...onPath } = spec;
  const config = unwrap(deployConfigFromSpec(onPath, source));
  return { source, config, ...(binary === undefined ? {} : { spec }), env };
}

/**
 * The deploy config a node's own Svcfile resolves to (what waking it starts). No environment: a
 * daemon node is sent, and a remote environment deployed with, the config alone, so the Svcfile's
 * ENV values never leave this machine.
 */
export async function nodeSourceConfig(
  fleet: Fleet,
  node: FleetNode,
  context: { configDir: string; env: Variables },
): Promise<NodeSource & { readonly config: DeployConfig }> {
  const { source, spec } = await openNodeSource(fleet, node, context);
  return { source, config: unwrap(deployConfigFromSpec(spec, source)) };
}

/** Why a node has no usable Svcfile source (none named, or the one named is not there), if so. */
export async function sourceProblem(
  fleet: Fleet,
  node: FleetNode,
  configDir: string,
): Promise<string | undefined> {
  try {
    const source = await sourceOf(fleet, node, configDir);
    return (await originOf(source, dirname(fleet.path))) === undefined
      ? `its Svcfile source ${source} does not exist`
      : undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
