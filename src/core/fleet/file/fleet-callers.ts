/**
 * The fleet file's `callers` (docs/design.md D29): who may use the gateway, with which token,
 * which models, and whether their requests may wake a node. Pure: the list and a variable lookup
 * in, each caller with the SHA-256 of its token (computed once, here) out, or problems naming
 * the caller and the key. A token's value never appears in a problem nor in what is returned:
 * the gateway compares hashes alone.
 */
import { createHash } from 'node:crypto';

import { isRecord } from './node-fields.ts';

export type CallerPriority = 'high' | 'normal' | 'low';

export interface FleetCaller {
  readonly name: string;
  /** `tokenEnv`: the variable holding its token, when the token is given that way. */
  readonly tokenEnv?: string;
  /**
   * SHA-256 of its token, lower-case hex: `tokenSha256` as written, or the hash of `tokenEnv`'s
   * value. Absent only when read leniently and the variable is set nowhere.
   */
  readonly tokenSha256?: string;
  /** Served names or globs (caller-models.ts); absent: every model. */
  readonly models?: readonly string[];
  readonly wake: boolean;
  readonly upstreams: boolean;
  /** Most requests in flight at once through one gateway; absent: no limit. */
  readonly concurrency?: number;
  readonly priority: CallerPriority;
}

export interface CallerSources {
  /** A variable's non-empty value: the environment, then the `.env` beside the fleet file. */
  readonly lookup: (name: string) => string | undefined;
  /** An unset `tokenEnv` is left absent rather than a problem (docs/design.md D24). */
  readonly lenient: boolean;
  readonly problem: (message: string) => void;
}

/** The names the gateway's own tokens take (docs/design.md D29); no caller may use them. */
export const RESERVED_CALLERS = ['gateway', 'operator'] as const;

const NAME = /^[a-z0-9][a-z0-9-]*$/;
const SHA256 = /^[0-9a-f]{64}$/i;

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function onOff(value: unknown, where: string, key: string, problem: (m: string) => void): boolean {
  if (value === undefined || value === 'on' || value === true) {
    return true;
  }
  if (value === 'off' || value === false) {
    return false;
  }
  problem(`${where}: ${key} must be on or off, got ${JSON.stringify(value)}`);
  return true;
}

function modelsOf(
  value: unknown,
  where: string,
  problem: (m: string) => void,
): string[] | undefined {
  if (value === undefined) {
    return undefined;
  }
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((item) => typeof item === 'string' && item !== '')) {
    problem(`${where}: models must be a list of served names or globs, as in [qwen-7b, "llama-*"]`);
    return undefined;
  }
  return list as string[];
}

function priorityOf(value: unknown, where: string, problem: (m: string) => void): CallerPriority {
  if (value === undefined) {
    return 'normal';
  }
  if (value === 'high' || value === 'normal' || value === 'low') {
    return value;
  }
  problem(`${where}: priority must be high, normal or low, got ${JSON.stringify(value)}`);
  return 'normal';
}

function concurrencyOf(value: unknown, where: string, problem: (m: string) => void) {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    problem(
      `${where}: concurrency must be a whole number of at least 1, got ${JSON.stringify(value)}`,
    );
    return undefined;
  }
  return value;
}

/** The token's hash, from exactly one of `tokenEnv` and `tokenSha256`. */
function tokenOf(
  raw: Readonly<Record<string, unknown>>,
  where: string,
  sources: CallerSources,
): { tokenEnv?: string; tokenSha256?: string } {
  const env = raw['tokenEnv'];
  const sha = raw['tokenSha256'];
  if ((env === undefined) === (sha === undefined)) {
    sources.problem(
      `${where}: give exactly one of tokenEnv (the variable holding its token) and tokenSha256 (the token's SHA-256), not ${env === undefined ? 'neither' : 'both'}`,
    );
    return {};
  }
  if (sha !== undefined) {
    if (typeof sha !== 'string' || !SHA256.test(sha)) {
      sources.problem(`${where}: tokenSha256 must be 64 hex digits (the SHA-256 of the token)`);
      return {};
    }
    return { tokenSha256: sha.toLowerCase() };
  }
  if (typeof env !== 'string' || env === '') {
    sources.problem(`${where}: tokenEnv must name an environment variable`);
    return {};
  }
  const token = sources.lookup(env);
  if (token === undefined) {
    if (!sources.lenient) {
      sources.problem(
        `${env} is not set (${where}, tokenEnv): export it, or put it in the .env beside the fleet file`,
      );
    }
    return { tokenEnv: env };
  }
  return { tokenEnv: env, tokenSha256: tokenHash(token) };
}

/** `callers:` as read, or undefined when the file has none (then everything is as before). */
export function callersOf(value: unknown, sources: CallerSources): FleetCaller[] | undefined {
  if (value === undefined) {
    return undefined;
  }
  const { problem } = sources;
  if (!Array.isArray(value)) {
    problem('callers must be a list of {name, tokenEnv or tokenSha256, models, wake, …}');
    return undefined;
  }
  const callers: FleetCaller[] = [];
  const names = new Set<string>();
  const hashes = new Map<string, string>();
  value.forEach((raw: unknown, index) => {
    if (!isRecord(raw)) {
      problem(`caller ${index + 1} must be a mapping`);
      return;
    }
    const name = raw['name'];
    if (typeof name !== 'string' || !NAME.test(name)) {
      problem(
        `caller ${index + 1}: name must match [a-z0-9][a-z0-9-]* (lower-case letters, digits, dashes), got ${JSON.stringify(name)}`,
      );
      return;
    }
    const where = `caller "${name}"`;
    if ((RESERVED_CALLERS as readonly string[]).includes(name)) {
      problem(
        `${where}: the name is the gateway's own (${RESERVED_CALLERS.join(', ')}); pick another`,
      );
      return;
    }
    if (names.has(name)) {
      problem(`duplicate caller name "${name}"`);
      return;
    }
    names.add(name);
    const token = tokenOf(raw, where, sources);
    if (token.tokenSha256 !== undefined) {
      const other = hashes.get(token.tokenSha256);
      if (other !== undefined) {
        problem(`${where}: tokenEnv/tokenSha256 gives the same token as caller "${other}"`);
      } else {
        hashes.set(token.tokenSha256, name);
      }
    }
    const models = modelsOf(raw['models'], where, problem);
    const concurrency = concurrencyOf(raw['concurrency'], where, problem);
    callers.push({
      name,
      ...token,
      ...(models === undefined ? {} : { models }),
      wake: onOff(raw['wake'], where, 'wake', problem),
      upstreams: onOff(raw['upstreams'], where, 'upstreams', problem),
      ...(concurrency === undefined ? {} : { concurrency }),
      priority: priorityOf(raw['priority'], where, problem),
    });
  });
  return callers;
}
