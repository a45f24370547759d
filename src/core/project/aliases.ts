/**
 * The alias registry: short names for Svcfiles (`svc serve qwen`). Stored as `aliases` in
 * `<config dir>/config.json`, written atomically; keys svc does not know are kept as they are, so
 * a newer or older svc sharing the file loses nothing.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { SvcError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';

export type AliasTable = Readonly<Record<string, string>>;

export function registryPath(configDir: string): string {
  return join(configDir, 'config.json');
}

/** Name-shaped: no path separators, not `.`/`..`, no leading dash, no whitespace. */
export function isAliasName(name: string): boolean {
  return (
    name !== '' &&
    name !== '.' &&
    name !== '..' &&
    name !== '__proto__' &&
    !/[/\\\s]/.test(name) &&
    !name.startsWith('-')
  );
}

/** The target of `name`, looking only at the table's own entries (not Object.prototype's). */
export function aliasTarget(table: AliasTable, name: string): string | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

async function readRegistry(configDir: string): Promise<Record<string, unknown>> {
  const path = registryPath(configDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return {};
    }
    throw new SvcError(
      'ERR_ALIAS',
      `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'read failed'})`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SvcError('ERR_ALIAS', `${path} is not valid JSON; fix or remove it`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SvcError('ERR_ALIAS', `${path} must hold a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function aliasesOf(registry: Record<string, unknown>, configDir: string): Record<string, string> {
  const aliases = registry['aliases'] ?? {};
  if (typeof aliases !== 'object' || Array.isArray(aliases)) {
    throw new SvcError('ERR_ALIAS', `${registryPath(configDir)}: "aliases" must be an object`);
  }
  return Object.fromEntries(
    Object.entries(aliases).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

export async function readAliases(configDir: string): Promise<AliasTable> {
  return aliasesOf(await readRegistry(configDir), configDir);
}

/**
 * The `harness` setting of config.json: the coding agent `svc code` launches by default. Absent
 * when unset; a non-string value is an error naming the key.
 */
export async function readHarness(configDir: string): Promise<string | undefined> {
  const harness = (await readRegistry(configDir))['harness'];
  if (harness === undefined) {
    return undefined;
  }
  if (typeof harness !== 'string' || harness === '') {
    throw new SvcError(
      'ERR_ALIAS',
      `${registryPath(configDir)}: "harness" must name an agent, such as "opencode"`,
    );
  }
  return harness;
}

/** Read-modify-write of the alias table; entries that are not strings are kept untouched. */
async function writeAliases(
  configDir: string,
  change: (aliases: Record<string, unknown>) => void,
): Promise<void> {
  const registry = await readRegistry(configDir);
  aliasesOf(registry, configDir);
  const aliases = { ...(registry['aliases'] as Record<string, unknown> | undefined) };
  change(aliases);
  const sorted = Object.fromEntries(Object.entries(aliases).sort(([a], [b]) => a.localeCompare(b)));
  await writeFileAtomic(
    registryPath(configDir),
    `${JSON.stringify({ ...registry, aliases: sorted }, null, 2)}\n`,
  );
}

/** Registers `name` → `target` (an absolute Svcfile path or a URL). Re-pointing needs `force`. */
export async function registerAlias(
  configDir: string,
  name: string,
  target: string,
  force: boolean,
): Promise<'added' | 'unchanged' | 're-pointed'> {
  if (!isAliasName(name)) {
    throw new SvcError(
      'ERR_ALIAS',
      `"${name}" cannot be an alias: use a name without slashes, spaces or a leading dash`,
    );
  }
  let outcome: 'added' | 'unchanged' | 're-pointed' = 'added';
  await writeAliases(configDir, (aliases) => {
    const existing = Object.hasOwn(aliases, name) ? aliases[name] : undefined;
    if (existing === target) {
      outcome = 'unchanged';
    } else if (existing !== undefined) {
      if (!force) {
        throw new SvcError(
          'ERR_ALIAS',
          `alias "${name}" already points at ${JSON.stringify(existing)}; pass --force to re-point it at ${target}`,
        );
      }
      outcome = 're-pointed';
    }
    aliases[name] = target;
  });
  return outcome;
}

export async function removeAlias(configDir: string, name: string): Promise<string> {
  let removed = '';
  await writeAliases(configDir, (aliases) => {
    const existing = Object.hasOwn(aliases, name) ? aliases[name] : undefined;
    if (existing === undefined) {
      throw new SvcError('ERR_ALIAS', `no alias named "${name}" (see svc alias --list)`);
    }
    removed = typeof existing === 'string' ? existing : JSON.stringify(existing);
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- the registry is keyed by user-chosen names
    delete aliases[name];
  });
  return removed;
}
