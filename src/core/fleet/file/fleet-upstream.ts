/**
 * An upstream node's own keys (docs/design.md D30), pure: any OpenAI-compatible base URL svc never
 * starts or stops, with the key it is sent, the models it serves (a map renames them to the
 * upstream's ids), its slots and the bound on one reply. Every key that starts, stops, wakes or
 * places a process is refused for it, naming the node, the key and the closest key it may use; and
 * its keys are refused for every other kind (docs/design.md D21: a kind carries only its own fields).
 */
import { closestName } from '../../closest-name.ts';
import { parseDuration } from '../../duration.ts';
import { isRecord, slotsOf } from './node-fields.ts';

/** docs/design.md D30: a whole reply's bound when the node names none. */
export const UPSTREAM_TIMEOUT_MS = 10 * 60_000;

/** The parts an upstream node has and no other kind has. */
export interface UpstreamParts {
  readonly kind: 'upstream';
  /** The base URL where OpenAI's `/v1` ends (`https://api.example.com/v1`), without a final `/`. */
  readonly url: string;
  /** Sent as `Authorization: Bearer`; never logged, returned, shown or passed to a command. */
  readonly apiKey?: string;
  readonly apiKeyEnv?: string;
  /** Served name → the upstream's model id (the same name where the file gave a list). */
  readonly models: Readonly<Record<string, string>>;
  /** Its capacity for the scheduler; absent: never held back. */
  readonly slots?: number;
  readonly timeoutMs: number;
}

/** The keys an upstream node may use, for "did you mean" (fleet-keys.ts knows them all). */
const UPSTREAM_KEYS = ['name', 'kind', 'url', 'apiKeyEnv', 'models', 'slots', 'timeout', 'tags'];
// `slots` is every kind's (docs/design.md D31: a cap on any node), so it is not among these.
const UPSTREAM_ONLY = ['url', 'apiKeyEnv', 'models', 'timeout'] as const;
/** Keys that start, stop, wake or place a process: none has a meaning for a URL svc never runs. */
const PROCESS_KEYS = [
  'host',
  'port',
  'tokenEnv',
  'engineTokenEnv',
  'engine',
  'file',
  'instance-type',
  'wake',
  'scaleOut',
  'idleStop',
  'keepWarm',
  'group',
  'wakeCommand',
  'sleepCommand',
  'keepCache',
  'keepCacheMax',
] as const;

/** Where a process key has a counterpart for a URL, the key that says it there. */
const COUNTERPART: Readonly<Record<string, string>> = {
  host: 'url',
  port: 'url',
  engine: 'url',
  tokenEnv: 'apiKeyEnv',
  engineTokenEnv: 'apiKeyEnv',
  file: 'models',
};

type Problem = (message: string) => void;
type Variable = (name: unknown, field: string, node: string) => { name?: string; value?: string };

/** A node of another kind given an upstream node's key: refused, naming both. */
export function refuseUpstreamKeys(
  raw: Record<string, unknown>,
  name: string,
  kind: string,
  problem: Problem,
): void {
  for (const key of UPSTREAM_ONLY) {
    if (raw[key] !== undefined) {
      problem(
        `node "${name}" is a ${kind} node, so ${key} does not apply: it is an upstream node's key (kind: upstream)`,
      );
    }
  }
}

function modelsOf(value: unknown, name: string, problem: Problem): Record<string, string> {
  const models: Record<string, string> = {};
  const add = (served: unknown, id: unknown): void => {
    if (typeof served !== 'string' || served === '' || typeof id !== 'string' || id === '') {
      problem(
        `node "${name}": models must list served names, or map each served name to the upstream's model id (non-empty strings)`,
      );
    } else if (Object.hasOwn(models, served)) {
      problem(`node "${name}": models names "${served}" twice`);
    } else {
      models[served] = id;
    }
  };
  if (Array.isArray(value)) {
    value.forEach((served: unknown) => add(served, served));
  } else if (isRecord(value)) {
    Object.entries(value).forEach(([served, id]) => add(served, id));
  }
  if (Object.keys(models).length === 0) {
    problem(
      `node "${name}" is an upstream node, so it needs models: the names it serves (a list, or a map of served name to the upstream's model id)`,
    );
  }
  return models;
}

/** The base URL, checked: http or https, no query; a final `/` is dropped. */
function urlOf(value: unknown, name: string, problem: Problem): string {
  const where = `node "${name}" is an upstream node, so it needs url:`;
  if (typeof value !== 'string' || value === '') {
    problem(
      `${where} the base URL where its OpenAI API's /v1 ends, as in https://api.example.com/v1`,
    );
    return '';
  }
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    problem(`node "${name}": url "${value}" must be an http:// or https:// address`);
    return '';
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    problem(
      `node "${name}": url must be a plain base URL (no query, fragment or credentials: put the key in the variable apiKeyEnv names)`,
    );
  }
  return value.replace(/\/+$/, '');
}

/** The upstream node's own parts; problems name the node and the key. */
export function upstreamParts(
  raw: Record<string, unknown>,
  name: string,
  context: { readonly problem: Problem; readonly variable: Variable },
): UpstreamParts {
  const { problem, variable } = context;
  for (const key of PROCESS_KEYS) {
    if (raw[key] !== undefined) {
      const near = COUNTERPART[key] ?? closestName(key, UPSTREAM_KEYS);
      problem(
        `node "${name}" is an upstream node, so ${key} does not apply: svc never starts, stops, wakes or places a process for it${near === undefined ? ` (its keys: ${UPSTREAM_KEYS.join(', ')})` : `; did you mean "${near}"?`}`,
      );
    }
  }
  const url = urlOf(raw['url'], name, problem);
  const models = modelsOf(raw['models'], name, problem);
  const timeout = raw['timeout'];
  const timeoutMs = typeof timeout === 'string' ? parseDuration(timeout) : undefined;
  if (timeout !== undefined && timeoutMs === undefined) {
    problem(`node "${name}": timeout must be a duration such as 30s or 10m`);
  }
  const key = variable(raw['apiKeyEnv'], 'apiKeyEnv', name);
  return {
    kind: 'upstream',
    url,
    models,
    timeoutMs: timeoutMs ?? UPSTREAM_TIMEOUT_MS,
    ...slotsOf(raw, name, problem),
    ...(key.name === undefined ? {} : { apiKeyEnv: key.name }),
    ...(key.value === undefined ? {} : { apiKey: key.value }),
  };
}
