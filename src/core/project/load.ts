/**
 * Finds and reads the Svcfile a `serve` invocation names (spec §1.1): nothing (SVC_ALIAS, else
 * ./Svcfile), a file, a directory holding a Svcfile, a registered alias, or an http(s) URL. Also
 * the preset it points at, and the environment the engine runs with (.env beside the Svcfile,
 * then the process, then ENV lines). I/O lives here; parsing and resolving stay pure.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseEnv } from 'node:util';

import { SvcError } from '../errors.ts';
import { type AliasTable, aliasTarget, isAliasName } from './aliases.ts';
import { fetchText } from './fetch-text.ts';
import type { RawProject } from './parse.ts';

export const SVCFILE = 'Svcfile';

export type Origin =
  { readonly kind: 'file'; readonly path: string } | { readonly kind: 'url'; readonly url: string };

export interface Located {
  readonly origin: Origin;
  /** The alias the target was reached through, when it was. */
  readonly alias?: string;
  /** Lines to tell the user (which alias was used, a path shadowing an alias). */
  readonly notes: readonly string[];
}

export interface LocateContext {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly aliases: () => Promise<AliasTable>;
}

export function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

export function describeOrigin(origin: Origin): string {
  return origin.kind === 'file' ? origin.path : origin.url;
}

async function kindOf(path: string): Promise<'file' | 'directory' | undefined> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? 'directory' : 'file';
  } catch {
    return undefined;
  }
}

/** A URL or path as given to `serve` or `alias` → where the Svcfile is. */
export async function originOf(target: string, cwd: string): Promise<Origin | undefined> {
  if (isUrl(target)) {
    return { kind: 'url', url: target.endsWith('/') ? `${target}${SVCFILE}` : target };
  }
  const path = resolve(cwd, target);
  const kind = await kindOf(path);
  if (kind === 'directory') {
    const inside = join(path, SVCFILE);
    return (await kindOf(inside)) === 'file' ? { kind: 'file', path: inside } : undefined;
  }
  return kind === 'file' ? { kind: 'file', path } : undefined;
}

async function viaAlias(
  name: string,
  table: AliasTable,
  cwd: string,
  how: string,
): Promise<Located> {
  const target = aliasTarget(table, name);
  if (target === undefined) {
    throw new SvcError('ERR_PROJECT_NOT_FOUND', `no alias named "${name}" (see svc alias --list)`);
  }
  const origin = await originOf(target, cwd);
  if (origin === undefined) {
    throw new SvcError(
      'ERR_PROJECT_NOT_FOUND',
      `alias "${name}" points at ${target}, which is gone: re-point it with svc alias --force -n ${name} <path>, or remove it with svc alias --delete ${name}`,
    );
  }
  return { origin, alias: name, notes: [`Using ${how} "${name}" (${describeOrigin(origin)})`] };
}

export async function locateProject(
  target: string | undefined,
  context: LocateContext,
): Promise<Located> {
  if (target === undefined) {
    const alias = context.env['SVC_ALIAS'];
    if (alias !== undefined && alias !== '') {
      const table = await context.aliases();
      if (!isAliasName(alias) || aliasTarget(table, alias) === undefined) {
        throw new SvcError(
          'ERR_PROJECT_NOT_FOUND',
          `SVC_ALIAS names "${alias}", which is not a registered alias: see svc alias --list, or unset SVC_ALIAS`,
        );
      }
      return viaAlias(alias, table, context.cwd, 'SVC_ALIAS');
    }
    const origin = await originOf(SVCFILE, context.cwd);
    if (origin === undefined) {
      throw new SvcError(
        'ERR_PROJECT_NOT_FOUND',
        `no ${SVCFILE} in ${context.cwd}: pass a path, a directory, an alias or a URL (svc serve <target>), or set SVC_ALIAS`,
      );
    }
    return { origin, notes: [] };
  }

  const origin = await originOf(target, context.cwd);
  if (isAliasName(target)) {
    const table = await context.aliases();
    if (aliasTarget(table, target) !== undefined) {
      if (origin !== undefined) {
        // A path on disk beats an alias of the same spelling; say so, since it may surprise.
        return {
          origin,
          notes: [
            `Note: "${target}" names both a path here and a registered alias; using the path.`,
          ],
        };
      }
      return viaAlias(target, table, context.cwd, 'alias');
    }
  }
  if (origin === undefined) {
    throw new SvcError(
      'ERR_PROJECT_NOT_FOUND',
      `no ${SVCFILE} at ${target}: not a file, a directory holding a ${SVCFILE}, a registered alias or a URL`,
    );
  }
  return { origin, notes: [] };
}

export async function readOrigin(origin: Origin): Promise<string> {
  if (origin.kind === 'url') {
    return fetchText(origin.url);
  }
  try {
    return await readFile(origin.path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'read failed';
    throw new SvcError('ERR_PROJECT_NOT_FOUND', `cannot read ${origin.path} (${code})`, {
      cause: error,
    });
  }
}

/**
 * spec §1.4: a relative PRESET resolves against the Svcfile's directory, or its URL when it was
 * fetched; an absolute path or URL stands as written. Pure.
 */
export function presetLocation(reference: string, origin: Origin): Origin {
  if (isUrl(reference)) {
    return { kind: 'url', url: reference };
  }
  if (origin.kind === 'url') {
    return isAbsolute(reference)
      ? { kind: 'file', path: reference }
      : { kind: 'url', url: new URL(reference, origin.url).toString() };
  }
  return { kind: 'file', path: resolve(dirname(origin.path), reference) };
}

/** Reads the preset text, naming the preset in any failure. */
export async function readPreset(location: Origin): Promise<string> {
  try {
    return await readOrigin(location);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new SvcError('ERR_PROJECT', `reading preset ${describeOrigin(location)}: ${why}`, {
      cause: error,
    });
  }
}

/**
 * The engine's environment: the `.env` beside a local Svcfile fills variables the process leaves
 * unset (or empty), and the Svcfile's ENV lines override both. A fetched Svcfile has no `.env`.
 */
export async function projectEnvironment(
  project: RawProject,
  origin: Origin,
  processEnv: Readonly<Record<string, string | undefined>>,
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(processEnv)) {
    if (value !== undefined) {
      env[key] = value;
    }
  }
  if (origin.kind === 'file') {
    const dotenvPath = join(dirname(origin.path), '.env');
    let text: string | undefined;
    try {
      text = await readFile(dotenvPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new SvcError(
          'ERR_PROJECT',
          `cannot read ${dotenvPath} (${(error as NodeJS.ErrnoException).code ?? 'read failed'})`,
        );
      }
    }
    for (const [key, value] of Object.entries(text === undefined ? {} : parseEnv(text))) {
      if (value !== undefined && (env[key] === undefined || env[key] === '')) {
        env[key] = value;
      }
    }
  }
  for (const { value } of project.env) {
    env[value.key] = value.value;
  }
  return env;
}
