/**
 * One node of a fleet file (docs/fleet-file.md, "Nodes"), pure: its YAML mapping
 * in, a FleetNode or problems naming it out. One parse branch per node kind (docs/design.md D21): a
 * `daemon` is reached at its host's control API; a `remote` environment is named by its registry
 * key, has no host, and always gates its engine with a key (spec §4.2 rule 4); a `local` node's
 * engine is supervised by the gateway itself from its `file:` (docs/design.md D27): no host, port
 * or token.
 */
import { instanceTypeProblem } from '../../contract/deploy-config.ts';
import { remoteNameProblem } from '../../remote/names.ts';
import { refuseUpstreamKeys, type UpstreamParts, upstreamParts } from './fleet-upstream.ts';
import { type EngineOverride, engineOverride, isRecord, slotsOf, tagsOf } from './node-fields.ts';
import { type NodeKeepCache, nodeKeepCacheOf } from './node-keep-cache.ts';
import { type NodeNames, nodeNamesOf } from './node-names.ts';
import { type NodeScheduling, nodeSchedulingOf } from './node-scheduling.ts';

export { type EngineOverride, isRecord } from './node-fields.ts';

export type WakePolicy = 'on' | 'off';

/**
 * What every node has, whatever its kind; its scheduling settings too (docs/design.md D25, D26),
 * and its further names and request presets (docs/design.md D31).
 */
interface NodeCommon extends NodeScheduling, NodeKeepCache, NodeNames {
  readonly name: string;
  /** The engine key, resolved from `engineTokenEnv` (a remote node: else the file's `apiKeyEnv`). */
  readonly engineKey?: string;
  /** The variable the engine key came from. */
  readonly engineTokenEnv?: string;
  readonly engine?: EngineOverride;
  /** The node's Svcfile source as written (`file:`), when given. */
  readonly file?: string;
  readonly tags?: Readonly<Record<string, string>>;
  /** docs/design.md D31: a cap on this gateway's requests in flight on it (below its engine's). */
  readonly slots?: number;
  /** The node's own wake policy, else the fleet's. */
  readonly wake: WakePolicy;
  /** Whether the file itself set `wake` on this node. */
  readonly ownWake: boolean;
}

/** An svc daemon, reached at its host's control API (spec §4.1) with its own token. */
export interface DaemonNode extends NodeCommon {
  readonly kind: 'daemon';
  readonly host: string;
  readonly port: number;
  /** The daemon's API token, resolved from `tokenEnv`. */
  readonly token?: string;
  readonly tokenEnv?: string;
}

/**
 * A remote environment, named by its registry key: it has no host, port or token (its calls go to
 * its registry entry's control-plane URLs, signed with cloud credentials).
 */
export interface RemoteNode extends NodeCommon {
  readonly kind: 'remote';
  /** The node's `instance-type` (`family.size`), sent with its deploy config (spec §2.7). */
  readonly instanceType?: string;
}

/**
 * An engine the gateway supervises itself (docs/design.md D27), from its project file (`file:`,
 * required): no host, port or token, since nothing stands between the gateway and the engine. Its
 * engine override names only a port (the engine listens on loopback).
 */
export interface LocalNode extends NodeCommon {
  readonly kind: 'local';
  readonly file: string;
}

/** docs/design.md D30: a base URL svc never starts or stops, so its wake is always off. */
export interface UpstreamNode extends NodeCommon, UpstreamParts {}

/** One node of a fleet file, by kind (docs/design.md D21): a kind carries only its own fields. */
export type FleetNode = DaemonNode | RemoteNode | LocalNode | UpstreamNode;

export interface NodeParseContext {
  readonly problem: (message: string) => void;
  /** Resolves a variable reference (`tokenEnv`, …), reporting an unset one. */
  readonly variable: (
    name: unknown,
    field: string,
    node: string,
  ) => { name?: string; value?: string };
  readonly fleetWake: WakePolicy | undefined;
  /** The file's fleet-wide `apiKeyEnv`: a remote node's engine key when it names none itself. */
  readonly apiKeyEnv: unknown;
  readonly path: string;
}

export function wakeOf(
  value: unknown,
  where: string,
  problem: (message: string) => void,
): WakePolicy | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (value === 'on' || value === 'off') {
    return value;
  }
  problem(`${where}unknown wake policy ${JSON.stringify(value)}: use "on" or "off"`);
  return undefined;
}

type KindParts =
  | Pick<
      DaemonNode,
      'kind' | 'host' | 'port' | 'token' | 'tokenEnv' | 'engineKey' | 'engineTokenEnv'
    >
  | Pick<RemoteNode, 'kind' | 'instanceType' | 'engineKey' | 'engineTokenEnv'>
  | Pick<LocalNode, 'kind' | 'file' | 'engineKey' | 'engineTokenEnv'>;

/** The parts of a daemon node that differ from a remote's; problems name the node. */
function daemonParts(
  raw: Record<string, unknown>,
  name: string,
  context: NodeParseContext,
): KindParts {
  const { problem, variable } = context;
  const host = raw['host'];
  const port = raw['port'] ?? 4242;
  if (typeof host !== 'string' || host === '') {
    problem(`node "${name}" has no host`);
  }
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    problem(`node "${name}": port must be a whole number from 1 to 65535`);
  }
  if (raw['instance-type'] !== undefined) {
    problem(
      `node "${name}": instance-type applies only to remote nodes (kind: remote); a daemon runs on its own machine`,
    );
  }
  const token = variable(raw['tokenEnv'], 'tokenEnv', name);
  const engineKey = variable(raw['engineTokenEnv'], 'engineTokenEnv', name);
  return {
    kind: 'daemon',
    host: typeof host === 'string' ? host : '',
    port: typeof port === 'number' ? port : 4242,
    ...(token.name === undefined ? {} : { tokenEnv: token.name }),
    ...(token.value === undefined ? {} : { token: token.value }),
    ...(engineKey.name === undefined ? {} : { engineTokenEnv: engineKey.name }),
    ...(engineKey.value === undefined ? {} : { engineKey: engineKey.value }),
  };
}

/** The parts of a remote node that differ from a daemon's; problems name the node. */
function remoteParts(
  raw: Record<string, unknown>,
  name: string,
  context: NodeParseContext,
): KindParts {
  const { problem } = context;
  const badName = remoteNameProblem(name);
  if (badName !== undefined) {
    problem(`node ${badName} (a remote node's name is its environment's registry key)`);
  }
  for (const key of ['host', 'port', 'tokenEnv'] as const) {
    if (raw[key] !== undefined) {
      problem(
        `node "${name}" is a remote environment, so ${key} does not apply: its calls go to the control plane registered with svc remote add ${name}, signed with AWS credentials`,
      );
    }
  }
  const key = remoteEngineKey(raw, name, context);
  const instanceType = raw['instance-type'];
  if (instanceType !== undefined) {
    const bad = instanceTypeProblem(instanceType);
    if (bad !== undefined) {
      problem(`node "${name}": instance-type ${bad}`);
    }
  }
  return {
    kind: 'remote',
    ...(key.name === undefined ? {} : { engineTokenEnv: key.name }),
    ...(key.value === undefined ? {} : { engineKey: key.value }),
    ...(typeof instanceType === 'string' ? { instanceType } : {}),
  };
}

/**
 * The parts of a local node (docs/design.md D27): its project file and engine key; problems name
 * the node.
 */
function localParts(
  raw: Record<string, unknown>,
  name: string,
  context: NodeParseContext,
): KindParts {
  const { problem, variable } = context;
  // Its files live in <config dir>/fleets/<fleet>/nodes/<name>/ (docs/design.md D27).
  if (name === '.' || name === '..' || /[/\\\0]/.test(name)) {
    problem(
      `node "${name}" is a local node, so its name must be a plain file name (no "/", "\\", "." or ".."): its files live under nodes/<name>/ in the fleet's directory in svc's config directory`,
    );
  }
  for (const key of ['host', 'port', 'tokenEnv', 'instance-type'] as const) {
    if (raw[key] !== undefined) {
      problem(
        `node "${name}" is a local node, so ${key} does not apply: the gateway runs its engine itself, from its file`,
      );
    }
  }
  // docs/design.md D33: its machine is the gateway's own, so a sleep command would put the
  // gateway to sleep, and a wake command would run on a machine that is already awake.
  for (const key of ['wakeCommand', 'sleepCommand'] as const) {
    if (raw[key] !== undefined) {
      problem(
        `node "${name}" is a local node, so ${key} does not apply: its engine runs on the gateway's own machine, which the gateway never puts to sleep or wakes`,
      );
    }
  }
  const override = raw['engine'];
  if (isRecord(override)) {
    for (const key of ['host', 'path'] as const) {
      if (override[key] !== undefined) {
        problem(
          `node "${name}" is a local node, so engine.${key} does not apply: its engine listens on this machine's loopback (engine.port may be set)`,
        );
      }
    }
  }
  const file = raw['file'];
  if (file === undefined) {
    problem(`node "${name}" is a local node, so it needs file: the path to the Svcfile it serves`);
  }
  const engineKey = variable(raw['engineTokenEnv'], 'engineTokenEnv', name);
  return {
    kind: 'local',
    file: typeof file === 'string' ? file : '',
    ...(engineKey.name === undefined ? {} : { engineTokenEnv: engineKey.name }),
    ...(engineKey.value === undefined ? {} : { engineKey: engineKey.value }),
  };
}

const KIND_PARTS = { daemon: daemonParts, remote: remoteParts, local: localParts } as const;

/** spec §4.2 rule 4: the node's engineTokenEnv, else the fleet-wide apiKeyEnv; one is required. */
function remoteEngineKey(
  raw: Record<string, unknown>,
  name: string,
  context: NodeParseContext,
): { name?: string; value?: string } {
  const own = raw['engineTokenEnv'] !== undefined;
  if (!own && context.apiKeyEnv === undefined) {
    context.problem(
      `node "${name}" is a remote environment, so its engine key must be set: name the variable holding it, in this node's engineTokenEnv or the file's fleet-wide apiKeyEnv (${context.path})`,
    );
    return {};
  }
  return context.variable(
    own ? raw['engineTokenEnv'] : context.apiKeyEnv,
    own ? 'engineTokenEnv' : 'apiKeyEnv',
    name,
  );
}

export function parseNode(
  raw: Record<string, unknown>,
  name: string,
  context: NodeParseContext,
): FleetNode | undefined {
  const { problem } = context;
  const kind = raw['kind'] ?? 'daemon';
  const tags = tagsOf(raw, name, problem);
  if (kind === 'upstream') {
    const parts = upstreamParts(raw, name, context);
    return { name, ...parts, ...(tags === undefined ? {} : { tags }), wake: 'off', ownWake: false };
  }
  if (kind !== 'daemon' && kind !== 'remote' && kind !== 'local') {
    problem(
      `node "${name}" has kind ${JSON.stringify(kind)}: supported kinds are "daemon", "remote", "local" and "upstream"`,
    );
    return undefined;
  }
  refuseUpstreamKeys(raw, name, kind, problem);
  const parts = KIND_PARTS[kind](raw, name, context);
  const engine = engineOverride(raw, name, problem);
  if (raw['file'] !== undefined && (typeof raw['file'] !== 'string' || raw['file'] === '')) {
    problem(`node "${name}": file must be a path to the node's Svcfile`);
  }
  const ownWake = wakeOf(raw['wake'], `node "${name}": `, problem);
  return {
    name,
    ...parts,
    ...(engine === undefined ? {} : { engine }),
    ...(typeof raw['file'] === 'string' && raw['file'] !== '' ? { file: raw['file'] } : {}),
    ...(tags === undefined ? {} : { tags }),
    ...slotsOf(raw, name, problem),
    ...nodeSchedulingOf(raw, name, problem),
    ...nodeKeepCacheOf(raw, name, kind, problem),
    ...nodeNamesOf(raw, name, problem),
    wake: ownWake ?? context.fleetWake ?? 'on',
    ownWake: ownWake !== undefined,
  };
}
