/**
 * What a coding agent is pointed at (spec §4.2 last paragraph, §1.4), pure: the fleet file's
 * `gateway` section or one node's engine in, a provider (base URL, models, default model, the
 * variable carrying the key) out. Which agent gets it, and how, is agents.ts's business.
 */
import { closestName } from '../core/closest-name.ts';
import { SvcError } from '../core/errors.ts';
import type { FleetGateway, Variables } from '../core/fleet/file/fleet-file.ts';

/** The credential: the variable the agent reads it from, and its value for the agent's env. */
export interface AgentKey {
  readonly variable: string;
  readonly value: string;
}

/** What one model offers an agent request, where svc knows it. */
export interface ModelLimits {
  /** Tokens one request may hold (prompt and reply). */
  readonly context?: number;
  /** Where `context` comes from, for the warning ("CONTEXT", "--ctx-size 16384 / 2 slots"). */
  readonly contextFrom?: string;
  /** The most tokens one reply may have (the Svcfile's OUTPUT). */
  readonly output?: number;
}

export interface AgentTarget {
  /** The provider's key in the agent's config (`-m <providerId>/<model>`). */
  readonly providerId: string;
  /** The provider's name as the agent shows it. */
  readonly label: string;
  /** OpenAI-compatible base, `/v1` included. */
  readonly baseUrl: string;
  readonly models: readonly string[];
  /** Absent for the generic provider: the user picks one of `models`. */
  readonly defaultModel?: string;
  /** Absent when the endpoint takes no key. */
  readonly key?: AgentKey;
  /** Per model of `models`: its limits, where svc knows them (agent-sizing.ts). */
  readonly limits?: Readonly<Record<string, ModelLimits>>;
}

/** spec §4.2: the section's address, with `/v1` added when it names no path. */
export function agentBaseUrl(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.origin}${path === '' ? '/v1' : path}`;
}

/** The first layer holding a non-empty value for `name`, in the order given. */
export function firstSet(name: string, layers: readonly Variables[]): string | undefined {
  for (const layer of layers) {
    const value = layer[name];
    if (value !== undefined && value !== '') {
      return value;
    }
  }
  return undefined;
}

/**
 * The gateway token (spec §4.2): from `layers` in order (the caller passes the project's ENV lines
 * over the process over the project's `.env`, then the fleet file's `.env`). A variable the section
 * names itself must be set; the `OPENAI_API_KEY` stand-in may be unset (a tokenless loopback
 * gateway), and then no key is written.
 */
export function gatewayKey(
  gateway: FleetGateway,
  layers: readonly Variables[],
  where: string,
): AgentKey | undefined {
  const value = firstSet(gateway.tokenEnv, layers);
  if (value !== undefined) {
    return { variable: gateway.tokenEnv, value };
  }
  if (gateway.ownTokenEnv) {
    throw new SvcError(
      'ERR_FLEET',
      `${gateway.tokenEnv} is not set (the gateway): export it, or put it in ${where}`,
    );
  }
  return undefined;
}

/** spec §1.4: omlx and mtplx run with or without a key; their agents send OPENAI_API_KEY if set. */
export const OPTIONAL_KEY_RUNNERS: ReadonlySet<string> = new Set(['omlx', 'mtplx']);

/**
 * The key for a node's engine: its `engineTokenEnv` when the engine is gated; for an optional-key
 * engine, `OPENAI_API_KEY` only when that is set (spec §1.4); otherwise none.
 */
export function nodeEngineKey(
  node: { readonly engineTokenEnv?: string; readonly engineKey?: string },
  runner: string | undefined,
  gatedKey: string | undefined,
  env: Variables,
): AgentKey | undefined {
  if (gatedKey !== undefined && node.engineTokenEnv !== undefined) {
    return { variable: node.engineTokenEnv, value: gatedKey };
  }
  if (runner !== undefined && OPTIONAL_KEY_RUNNERS.has(runner)) {
    const value = firstSet('OPENAI_API_KEY', [env]);
    return value === undefined ? undefined : { variable: 'OPENAI_API_KEY', value };
  }
  return undefined;
}

/** One model the gateway lists, with the state its `svc` extension reports (docs/design.md D23). */
export interface ListedModel {
  readonly id: string;
  /** `running`, `loading` or `asleep`; absent from a server that does not say. */
  readonly state?: string;
}

/** Models from a `GET /v1/models` reply (OpenAI list shape), de-duplicated in order. */
export function listedModelsOf(reply: unknown): ListedModel[] {
  const data = (reply as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) {
    return [];
  }
  const seen = new Set<string>();
  const models: ListedModel[] = [];
  for (const entry of data as unknown[]) {
    const { id, svc } = (entry ?? {}) as { id?: unknown; svc?: { state?: unknown } };
    if (typeof id === 'string' && id !== '' && !seen.has(id)) {
      seen.add(id);
      const state = svc?.state;
      models.push(typeof state === 'string' ? { id, state } : { id });
    }
  }
  return models;
}

/** Model ids from a `GET /v1/models` reply, de-duplicated in order. */
export function modelIdsOf(reply: unknown): string[] {
  return listedModelsOf(reply).map((model) => model.id);
}

/** How many ids an error lists before it says how many more there are. */
const LISTED_IN_ERRORS = 20;

export function listIds(ids: readonly string[]): string {
  if (ids.length === 0) {
    return 'none';
  }
  const shown = ids.slice(0, LISTED_IN_ERRORS).join(', ');
  return ids.length > LISTED_IN_ERRORS
    ? `${shown} and ${ids.length - LISTED_IN_ERRORS} more`
    : shown;
}

/** `--model <id>` must be one of `ids` (what the endpoint lists); else an error naming them. */
export function checkModel(model: string, ids: readonly string[], source: string): void {
  if (ids.includes(model)) {
    return;
  }
  const closest = closestName(model, ids);
  throw new SvcError(
    'ERR_USAGE',
    `--model "${model}" is not a model ${source} lists${closest === undefined ? '' : ` (did you mean "${closest}"?)`}: it lists ${listIds(ids)}`,
  );
}
