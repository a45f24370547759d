/**
 * The fleet file (`fleet.yaml`, docs/fleet-file.md): the nodes a gateway
 * serves and the settings it routes by. Pure: YAML text and the variables it may reference in,
 * a Fleet or every problem found (each naming the node) out. The YAML itself, and the refusal of
 * unknown keys (docs/design.md D20), are fleet-yaml.ts's.
 */
import { corsOrigins } from '../../http/cors.ts';
import { failed, ok, type Result } from '../../project/diagnostics.ts';
import { callersOf, type FleetCaller } from './fleet-callers.ts';
import { concurrencyOf, type FleetConcurrency } from './fleet-concurrency.ts';
import { fallbacksOf, type FleetFallback } from './fleet-fallbacks.ts';
import { type FleetNode, isRecord, parseNode, wakeOf, type WakePolicy } from './fleet-node.ts';
import { type FleetOperator, operatorOf } from './fleet-operator.ts';
import { type FleetScheduling, fleetSchedulingOf } from './fleet-scheduling.ts';
import { type FleetVariant, variantsOf } from './fleet-variants.ts';
import { readFleetYaml } from './fleet-yaml.ts';

export type { CallerPriority, FleetCaller } from './fleet-callers.ts';
export type { FallbackReason, FleetFallback } from './fleet-fallbacks.ts';
export type {
  DaemonNode,
  EngineOverride,
  FleetNode,
  LocalNode,
  RemoteNode,
  UpstreamNode,
  WakePolicy,
} from './fleet-node.ts';
export type { FleetOperator } from './fleet-operator.ts';
export type {
  FleetGroup,
  FleetQueue,
  FleetQueueLimits,
  FleetScheduling,
} from './fleet-scheduling.ts';
export type { FleetVariant } from './fleet-variants.ts';
export type { RequestParams } from './node-names.ts';
export type { NodeScheduling } from './node-scheduling.ts';
export type Preference = 'idle' | 'active';

/**
 * The fleet file; its top-level scheduling settings (docs/design.md D25, D26) are
 * FleetScheduling's.
 */
export interface Fleet extends FleetScheduling {
  readonly path: string;
  readonly nodes: readonly FleetNode[];
  readonly prefer?: Preference;
  readonly wake?: WakePolicy;
  /** The fleet-wide engine key variable for remote nodes (spec §4.2 rule 4). */
  readonly apiKeyEnv?: string;
  readonly concurrency?: FleetConcurrency;
  readonly gateway?: FleetGateway;
  /**
   * `gateway.cors`: the origins browsers may call the gateway from; absent allows any
   * (docs/design.md D22).
   */
  readonly cors?: readonly string[];
  /**
   * `gateway.operatorTokenEnv` (docs/design.md D28): the operator token's variable, and its value
   * when set.
   */
  readonly operator?: FleetOperator;
  /** `callers` (docs/design.md D29); absent: the gateway and operator tokens alone, as before. */
  readonly callers?: readonly FleetCaller[];
  /** `variants` (docs/design.md D31): further names with their own request presets. */
  readonly variants?: readonly FleetVariant[];
  /** `fallbacks` by model (docs/design.md D30); absent: none. */
  readonly fallbacks?: ReadonlyMap<string, FleetFallback>;
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

export interface FleetSources {
  /** The process environment; a non-empty value wins. */
  readonly env: Variables;
  /** The `.env` beside the fleet file. */
  readonly dotenv: Variables;
  /**
   * `required` (the default) makes a node's unset token variable a problem; `lenient` leaves its
   * value absent (keeping the variable's name) for commands that need only the `gateway` section,
   * or one node they check themselves (docs/design.md D24). The operator token's variable follows
   * it too.
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
  const fleetWake = wakeOf(document['wake'], '', problem);

  const concurrency = concurrencyOf(document['concurrency'], problem);

  let gateway: Fleet['gateway'];
  let cors: string[] | undefined;
  const rawGateway = document['gateway'];
  if (isRecord(rawGateway) && rawGateway['cors'] !== undefined) {
    cors = corsOrigins(rawGateway['cors'], problem);
  }
  const operator = isRecord(rawGateway)
    ? operatorOf(rawGateway['operatorTokenEnv'], {
        lookup: (name) => lookup(name, sources),
        lenient: sources.nodeTokens === 'lenient',
        problem,
      })
    : undefined;
  // A section that only restricts CORS or names the operator token needs no url: the url is for
  // agents, the rest for the gateway itself.
  const serverOnly =
    isRecord(rawGateway) &&
    rawGateway['url'] === undefined &&
    (cors !== undefined || rawGateway['operatorTokenEnv'] !== undefined);
  if (rawGateway !== undefined && !serverOnly) {
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
      const node = parseNode(raw, name, {
        problem,
        variable,
        fleetWake,
        apiKeyEnv: document['apiKeyEnv'],
        path,
      });
      if (node !== undefined) {
        nodes.push(node);
      }
    });
  }

  const callers = callersOf(document['callers'], {
    lookup: (name) => lookup(name, sources),
    lenient: sources.nodeTokens === 'lenient',
    problem,
  });
  const scheduling = fleetSchedulingOf(document, nodes, problem);
  const variants = variantsOf(document['variants'], nodes, problem);
  const fallbacks = fallbacksOf(document['fallbacks'], nodes, problem);
  if (problems.length > 0) {
    return failed(problems, 'ERR_FLEET');
  }
  return ok({
    path,
    nodes,
    ...scheduling,
    ...(prefer === undefined ? {} : { prefer }),
    ...(fleetWake === undefined ? {} : { wake: fleetWake }),
    ...(typeof document['apiKeyEnv'] === 'string' ? { apiKeyEnv: document['apiKeyEnv'] } : {}),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(gateway === undefined ? {} : { gateway }),
    ...(cors === undefined ? {} : { cors }),
    ...(operator === undefined ? {} : { operator }),
    ...(callers === undefined ? {} : { callers }),
    ...(variants === undefined || variants.length === 0 ? {} : { variants }),
    ...(fallbacks === undefined ? {} : { fallbacks }),
  });
}
