/**
 * The fleet file (`fleet.yaml`, ../shared/reference/original-behaviour.md §7): the nodes a gateway
 * serves and the settings it routes by. Pure: YAML text and the variables it may reference in,
 * a Fleet or every problem found (each naming the node) out. The YAML itself, and the refusal of
 * unknown keys (GUIDE D20), are fleet-yaml.ts's.
 */
import { failed, ok, type Result } from '../core/project/diagnostics.ts';
import { corsOrigins } from './cors.ts';
import { readFleetYaml } from './fleet-yaml.ts';

export type WakePolicy = 'on' | 'off';
export type Preference = 'idle' | 'active';

export interface EngineOverride {
  readonly host?: string;
  readonly port?: number;
  readonly path?: string;
}

export interface FleetNode {
  readonly name: string;
  readonly kind: 'daemon';
  readonly host: string;
  readonly port: number;
  /** The daemon's API token, resolved from `tokenEnv`. */
  readonly token?: string;
  readonly tokenEnv?: string;
  /** The engine key, resolved from `engineTokenEnv`. */
  readonly engineKey?: string;
  readonly engineTokenEnv?: string;
  readonly engine?: EngineOverride;
  /** The node's Svcfile source as written (`file:`), when given. */
  readonly file?: string;
  readonly tags?: Readonly<Record<string, string>>;
  /** The node's own wake policy, else the fleet's. */
  readonly wake: WakePolicy;
  /** Whether the file itself set `wake` on this node. */
  readonly ownWake: boolean;
}

export interface Fleet {
  readonly path: string;
  readonly nodes: readonly FleetNode[];
  readonly prefer?: Preference;
  readonly wake?: WakePolicy;
  readonly concurrency?: {
    readonly total?: number;
    readonly tags?: Readonly<Record<string, number>>;
  };
  readonly gateway?: FleetGateway;
  /** `gateway.cors`: the origins browsers may call the gateway from; absent allows any (GUIDE D22). */
  readonly cors?: readonly string[];
}

/** The fleet file's `gateway` section: where agents reach the fleet and the token they present. */
export interface FleetGateway {
  readonly url: string;
  /** The variable holding the gateway token; `OPENAI_API_KEY` when the section names none. */
  readonly tokenEnv: string;
  /** Whether the section named `tokenEnv` itself (an unset named variable is an error). */
  readonly ownTokenEnv: boolean;
  readonly name: string;
}

export type Variables = Readonly<Record<string, string | undefined>>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface FleetSources {
  /** The process environment; a non-empty value wins. */
  readonly env: Variables;
  /** The `.env` beside the fleet file. */
  readonly dotenv: Variables;
  /**
   * `required` (the default) makes a node's unset token variable a problem; `lenient` leaves its
   * value absent (keeping the variable's name) for commands that need only the `gateway` section,
   * or one node they check themselves (GUIDE D24).
   */
  readonly nodeTokens?: 'required' | 'lenient';
}

function lookup(name: string, sources: FleetSources): string | undefined {
  const fromEnv = sources.env[name];
  if (fromEnv !== undefined && fromEnv !== '') {
    return fromEnv;
  }
  const fromFile = sources.dotenv[name];
  return fromFile === undefined || fromFile === '' ? undefined : fromFile;
}

export function parseFleet(text: string, path: string, sources: FleetSources): Result<Fleet> {
  const read = readFleetYaml(text, path);
  if (!read.ok) {
    return read;
  }
  const document = read.value.data;
  if (!isRecord(document)) {
    return failed([`${path}: expected a mapping with nodes:`], 'ERR_FLEET');
  }
  const problems: string[] = [...read.value.unknownKeys];
  const problem = (message: string): void => {
    problems.push(`${path}: ${message}`);
  };
  const wakeOf = (value: unknown, where: string): WakePolicy | undefined => {
    if (value === undefined) {
      return undefined;
    }
    if (value === 'on' || value === 'off') {
      return value;
    }
    problem(`${where}unknown wake policy ${JSON.stringify(value)}: use "on" or "off"`);
    return undefined;
  };
  const variable = (
    name: unknown,
    field: string,
    node: string,
  ): { name?: string; value?: string } => {
    if (name === undefined) {
      return {};
    }
    if (typeof name !== 'string' || name === '') {
      problem(`node "${node}": ${field} must name an environment variable`);
      return {};
    }
    const value = lookup(name, sources);
    if (value === undefined && sources.nodeTokens === 'lenient') {
      return { name };
    }
    if (value === undefined) {
      problem(
        `${name} is not set (node "${node}", ${field}): export it, or put it in the .env beside the fleet file`,
      );
      return { name };
    }
    return { name, value };
  };

  let prefer: Preference | undefined;
  if (document['prefer'] !== undefined) {
    if (document['prefer'] === 'idle' || document['prefer'] === 'active') {
      prefer = document['prefer'];
    } else {
      problem(`unknown preference ${JSON.stringify(document['prefer'])}: use "idle" or "active"`);
    }
  }
  const fleetWake = wakeOf(document['wake'], '');

  let concurrency: Fleet['concurrency'];
  const rawConcurrency = document['concurrency'];
  if (rawConcurrency !== undefined) {
    if (!isRecord(rawConcurrency)) {
      problem('concurrency must be a mapping with total and/or tags');
    } else {
      const total = rawConcurrency['total'];
      if (
        total !== undefined &&
        (typeof total !== 'number' || !Number.isInteger(total) || total <= 0)
      ) {
        problem(`concurrency.total must be a positive whole number, got ${JSON.stringify(total)}`);
      }
      const tags: Record<string, number> = {};
      if (rawConcurrency['tags'] !== undefined) {
        if (!isRecord(rawConcurrency['tags'])) {
          problem('concurrency.tags must map "key=value" to a limit');
        } else {
          for (const [tag, limit] of Object.entries(rawConcurrency['tags'])) {
            if (!/^[^=]+=[^=]+$/.test(tag)) {
              problem(`concurrency.tags: "${tag}" must be key=value`);
            } else if (typeof limit !== 'number' || !Number.isInteger(limit) || limit <= 0) {
              problem(`concurrency.tags["${tag}"] must be a positive whole number`);
            } else {
              tags[tag] = limit;
            }
          }
        }
      }
      concurrency = {
        ...(typeof total === 'number' && total > 0 ? { total } : {}),
        ...(Object.keys(tags).length > 0 ? { tags } : {}),
      };
    }
  }

  let gateway: Fleet['gateway'];
  let cors: string[] | undefined;
  const rawGateway = document['gateway'];
  if (isRecord(rawGateway) && rawGateway['cors'] !== undefined) {
    cors = corsOrigins(rawGateway['cors'], problem);
  }
  // A section that only restricts CORS needs no url: the url is for agents, the list for browsers.
  const corsOnly = isRecord(rawGateway) && rawGateway['url'] === undefined && cors !== undefined;
  if (rawGateway !== undefined && !corsOnly) {
    if (
      !isRecord(rawGateway) ||
      typeof rawGateway['url'] !== 'string' ||
      rawGateway['url'] === ''
    ) {
      problem(
        "the gateway section names no url: give the gateway's address, as in url: http://gpu-box:4000",
      );
    } else if (!rawGateway['url'].includes('://')) {
      problem(
        `the gateway url "${rawGateway['url']}" has no scheme: give its full address, including http:// or https://`,
      );
    } else {
      const url = rawGateway['url'];
      const ownTokenEnv =
        typeof rawGateway['tokenEnv'] === 'string' && rawGateway['tokenEnv'] !== '';
      const tokenEnv = ownTokenEnv ? (rawGateway['tokenEnv'] as string) : 'OPENAI_API_KEY';
      let name = typeof rawGateway['name'] === 'string' ? rawGateway['name'] : url;
      if (typeof rawGateway['name'] !== 'string') {
        try {
          name = new URL(url).host || url;
        } catch {
          name = url;
        }
      }
      gateway = { url, tokenEnv, ownTokenEnv, name };
    }
  }

  const nodes: FleetNode[] = [];
  const rawNodes = document['nodes'];
  if (!Array.isArray(rawNodes) || rawNodes.length === 0) {
    problem('no nodes: list at least one under nodes:');
  } else {
    const seen = new Set<string>();
    rawNodes.forEach((raw: unknown, index) => {
      if (!isRecord(raw)) {
        problem(`node ${index + 1} must be a mapping`);
        return;
      }
      const name = typeof raw['name'] === 'string' && raw['name'] !== '' ? raw['name'] : undefined;
      if (name === undefined) {
        problem(`node ${index + 1} has no name`);
        return;
      }
      if (seen.has(name)) {
        problem(`duplicate node name "${name}"`);
        return;
      }
      seen.add(name);
      const kind = raw['kind'] ?? 'daemon';
      if (kind === 'remote') {
        problem(
          `node "${name}" is a remote environment: remote nodes are not supported yet; use daemon nodes`,
        );
        return;
      }
      if (kind !== 'daemon') {
        problem(
          `node "${name}" has kind ${JSON.stringify(kind)}: supported kinds are "daemon" and "remote"`,
        );
        return;
      }
      const host = raw['host'];
      if (typeof host !== 'string' || host === '') {
        problem(`node "${name}" has no host`);
      }
      const port = raw['port'] ?? 4242;
      if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
        problem(`node "${name}": port must be a whole number from 1 to 65535`);
      }
      let engine: EngineOverride | undefined;
      if (raw['engine'] !== undefined) {
        const override = raw['engine'];
        if (!isRecord(override)) {
          problem(`node "${name}": engine must be a mapping of host, port and path`);
        } else {
          const enginePort = override['port'];
          if (
            enginePort !== undefined &&
            (typeof enginePort !== 'number' || !Number.isInteger(enginePort))
          ) {
            problem(`node "${name}": engine.port must be a whole number`);
          }
          engine = {
            ...(typeof override['host'] === 'string' ? { host: override['host'] } : {}),
            ...(typeof enginePort === 'number' ? { port: enginePort } : {}),
            ...(typeof override['path'] === 'string' ? { path: override['path'] } : {}),
          };
        }
      }
      let tags: Record<string, string> | undefined;
      if (raw['tags'] !== undefined) {
        if (!isRecord(raw['tags'])) {
          problem(`node "${name}": tags must map names to values`);
        } else {
          tags = {};
          for (const [key, value] of Object.entries(raw['tags'])) {
            if (key === '' || key === '__proto__' || typeof value !== 'string' || value === '') {
              problem(`node "${name}": tag ${JSON.stringify(key)} needs a non-empty string value`);
            } else {
              tags[key] = value;
            }
          }
        }
      }
      if (raw['file'] !== undefined && (typeof raw['file'] !== 'string' || raw['file'] === '')) {
        problem(`node "${name}": file must be a path to the node's Svcfile`);
      }
      const ownWake = wakeOf(raw['wake'], `node "${name}": `);
      const token = variable(raw['tokenEnv'], 'tokenEnv', name);
      const engineKey = variable(raw['engineTokenEnv'], 'engineTokenEnv', name);
      nodes.push({
        name,
        kind: 'daemon',
        host: typeof host === 'string' ? host : '',
        port: typeof port === 'number' ? port : 4242,
        ...(token.name === undefined ? {} : { tokenEnv: token.name }),
        ...(token.value === undefined ? {} : { token: token.value }),
        ...(engineKey.name === undefined ? {} : { engineTokenEnv: engineKey.name }),
        ...(engineKey.value === undefined ? {} : { engineKey: engineKey.value }),
        ...(engine === undefined ? {} : { engine }),
        ...(typeof raw['file'] === 'string' && raw['file'] !== '' ? { file: raw['file'] } : {}),
        ...(tags === undefined ? {} : { tags }),
        wake: ownWake ?? fleetWake ?? 'on',
        ownWake: ownWake !== undefined,
      });
    });
  }

  if (problems.length > 0) {
    return failed(problems, 'ERR_FLEET');
  }
  return ok({
    path,
    nodes,
    ...(prefer === undefined ? {} : { prefer }),
    ...(fleetWake === undefined ? {} : { wake: fleetWake }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(gateway === undefined ? {} : { gateway }),
    ...(cors === undefined ? {} : { cors }),
  });
}
