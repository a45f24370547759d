/**
 * The remote-environment registry (docs/remote.md): one
 * `<config dir>/remotes/<name>/remote.json` per environment, with the original's keys, so
 * environments registered for it work unchanged. Reading resolves a node's control-plane
 * addresses: the file, then the `SVC_REMOTE_…_URL` / `SVC_REMOTE_REGION` overrides, then the
 * region fallbacks (`AWS_REGION`, then the region in a Lambda Function-URL host).
 */
import { access, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { closestName } from '../closest-name.ts';
import { SvcError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';

/** The calls' URLs, by the name of the call they serve. */
export const URL_KEYS = [
  'start_url',
  'stop_url',
  'stats_url',
  'update_url',
  'deploy_url',
  'env_url',
  'seed_url',
] as const;

/** The registry file's keys, exactly as the original writes them. */
export const REGISTRY_KEYS = [...URL_KEYS, 'base_url', 'region', 'environment'] as const;

export type RegistryKey = (typeof REGISTRY_KEYS)[number];
export type RegistryEntry = Partial<Record<RegistryKey, string>>;

export type UrlKey = (typeof URL_KEYS)[number];

/** A remote environment ready to be called: every address it has, its region and env key. */
export interface Remote {
  readonly name: string;
  /** The `env` query every call carries: the file's `environment`, else the name. */
  readonly environment: string;
  readonly region: string;
  readonly urls: Readonly<Partial<Record<UrlKey, string>>> & {
    readonly start_url: string;
    readonly stop_url: string;
  };
}

export function registryPath(configDir: string, name: string): string {
  return join(configDir, 'remotes', name, 'remote.json');
}

/**
 * The entry parsed and checked: strings only, known keys only (docs/design.md D20), URLs that
 * parse.
 */
export function parseRegistryEntry(text: string, path: string): RegistryEntry {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new SvcError('ERR_FLEET', `${path} is not JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SvcError('ERR_FLEET', `${path} must hold a JSON object`);
  }
  const entry: RegistryEntry = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (!(REGISTRY_KEYS as readonly string[]).includes(key)) {
      const near = closestName(key, REGISTRY_KEYS);
      problems.push(`unknown key "${key}"${near === undefined ? '' : `: did you mean "${near}"?`}`);
      continue;
    }
    if (typeof value !== 'string') {
      problems.push(`${key} must be a string`);
      continue;
    }
    const problem = (URL_KEYS as readonly string[]).includes(key) ? urlProblem(value) : undefined;
    if (problem !== undefined) {
      problems.push(`${key}: ${problem}`);
      continue;
    }
    entry[key as RegistryKey] = value;
  }
  if (problems.length > 0) {
    throw new SvcError('ERR_FLEET', `${path}: ${problems.join('; ')}`);
  }
  return entry;
}

export function urlProblem(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:'
      ? undefined
      : `"${value}" is not an http(s) URL`;
  } catch {
    return `"${value}" is not a URL`;
  }
}

/** The registry entry, or undefined when the environment is not registered. */
export async function readRegistryEntry(
  configDir: string,
  name: string,
): Promise<RegistryEntry | undefined> {
  const path = registryPath(configDir, name);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw new SvcError(
      'ERR_FLEET',
      `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'read failed'})`,
    );
  }
  return parseRegistryEntry(text, path);
}

export async function writeRegistryEntry(
  configDir: string,
  name: string,
  entry: RegistryEntry,
): Promise<string> {
  const path = registryPath(configDir, name);
  await writeFileAtomic(path, `${JSON.stringify(entry, null, 2)}\n`);
  return path;
}

/** Removes the entry; false when there was none. */
export async function removeRegistryEntry(configDir: string, name: string): Promise<boolean> {
  // A malformed entry can be removed too: only whether it exists is asked.
  try {
    await access(registryPath(configDir, name));
  } catch {
    return false;
  }
  await rm(join(configDir, 'remotes', name), { recursive: true, force: true });
  return true;
}

/** The region in a Lambda Function-URL host, `<id>.lambda-url.<region>.on.aws`. */
export function regionOfFunctionUrl(url: string): string | undefined {
  try {
    return /^[^.]+\.lambda-url\.([a-z0-9-]+)\.on\.aws$/.exec(new URL(url).hostname)?.[1];
  } catch {
    return undefined;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function set(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The environment as calls reach it, pure: the entry (absent when unregistered), then the
 * overrides, then the region fallbacks. Throws naming the environment when it cannot be called.
 */
export function resolveRemote(name: string, entry: RegistryEntry | undefined, env: Env): Remote {
  const urls: Partial<Record<UrlKey, string>> = {};
  for (const key of URL_KEYS) {
    const override = set(env, `SVC_REMOTE_${key.replace('_url', '').toUpperCase()}_URL`);
    const value = override ?? entry?.[key];
    if (value !== undefined && value !== '') {
      urls[key] = value;
    }
  }
  if (entry === undefined && urls.start_url === undefined) {
    throw new SvcError(
      'ERR_FLEET',
      `remote environment "${name}" is not registered: run svc remote add ${name} --start-url <url> --stop-url <url> --region <region>`,
    );
  }
  const region =
    set(env, 'SVC_REMOTE_REGION') ??
    (entry?.region === '' ? undefined : entry?.region) ??
    set(env, 'AWS_REGION') ??
    (urls.start_url === undefined ? undefined : regionOfFunctionUrl(urls.start_url));
  const { start_url: start, stop_url: stop } = urls;
  if (start === undefined || stop === undefined || region === undefined) {
    const missing = [
      ...(start === undefined ? ['start_url'] : []),
      ...(stop === undefined ? ['stop_url'] : []),
      ...(region === undefined ? ['region'] : []),
    ];
    throw new SvcError(
      'ERR_FLEET',
      `remote environment "${name}" is not fully configured: start_url, stop_url and region are all required (missing ${missing.join(', ')}); see svc remote add --help`,
    );
  }
  return {
    name,
    environment:
      entry?.environment === undefined || entry.environment === '' ? name : entry.environment,
    region,
    urls: { ...urls, start_url: start, stop_url: stop },
  };
}
