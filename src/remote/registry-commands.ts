/**
 * `svc remote add|ls|rm`: the registry entries (registry.ts), written atomically with the
 * original's keys. An entry that cannot be read is a row saying why in `ls`, never a failure of
 * the whole listing.
 */
import { closestName } from '../core/closest-name.ts';
import { SvcError } from '../core/errors.ts';
import { registeredNames } from '../core/remote/connect.ts';
import {
  readRegistryEntry,
  regionOfFunctionUrl,
  type RegistryEntry,
  removeRegistryEntry,
  urlProblem,
  writeRegistryEntry,
} from '../core/remote/registry.ts';

type Out = (text: string) => void;

/** `add`'s flags, by registry key. */
const FLAG_KEYS = [
  ['start-url', 'start_url'],
  ['stop-url', 'stop_url'],
  ['stats-url', 'stats_url'],
  ['update-url', 'update_url'],
  ['deploy-url', 'deploy_url'],
  ['env-url', 'env_url'],
  ['region', 'region'],
  ['environment', 'environment'],
] as const;

type AddFlags = Partial<Record<(typeof FLAG_KEYS)[number][0], string>>;

/** The entry `add` writes, pure; refuses (naming the flag) before anything is written. */
export function entryFromFlags(name: string, flags: AddFlags): RegistryEntry {
  const missing = (['start-url', 'stop-url'] as const).filter((flag) => flags[flag] === undefined);
  if (missing.length > 0) {
    throw new SvcError(
      'ERR_USAGE',
      `svc remote add ${name} needs ${missing.map((flag) => `--${flag} <url>`).join(' and ')}`,
    );
  }
  const entry: RegistryEntry = {};
  for (const [flag, key] of FLAG_KEYS) {
    const value = flags[flag];
    if (value === undefined) {
      continue;
    }
    const problem = key.endsWith('_url') ? urlProblem(value) : undefined;
    if (problem !== undefined) {
      throw new SvcError('ERR_USAGE', `--${flag}: ${problem}`);
    }
    entry[key] = value;
  }
  return entry;
}

export async function addRemote(
  configDir: string,
  name: string,
  flags: AddFlags,
  json: boolean,
  out: Out,
): Promise<number> {
  const entry = entryFromFlags(name, flags);
  const existed = (await registeredNames(configDir)).includes(name);
  const path = await writeRegistryEntry(configDir, name, entry);
  const region = entry.region ?? regionOfFunctionUrl(entry.start_url ?? '');
  if (json) {
    out(JSON.stringify({ name, path, entry }, null, 2));
  } else {
    out(`${existed ? 'updated' : 'registered'} remote environment "${name}" in ${path}`);
    if (region === undefined) {
      out(`  no region given: calls will sign for AWS_REGION (or pass --region)`);
    }
  }
  return 0;
}

export async function listRemotes(configDir: string, json: boolean, out: Out): Promise<number> {
  const rows: { name: string; entry?: RegistryEntry; error?: string }[] = [];
  for (const name of await registeredNames(configDir)) {
    try {
      const entry = await readRegistryEntry(configDir, name);
      rows.push(entry === undefined ? { name, error: 'no remote.json' } : { name, entry });
    } catch (error) {
      rows.push({ name, error: (error as Error).message });
    }
  }
  if (json) {
    out(JSON.stringify(rows, null, 2));
    return 0;
  }
  if (rows.length === 0) {
    out('no remote environments registered: add one with svc remote add <name> --start-url …');
    return 0;
  }
  const table = [
    ['NAME', 'ENVIRONMENT', 'REGION', 'START URL'],
    ...rows.map(({ name, entry, error }) =>
      entry === undefined
        ? [name, 'unreadable', '', error ?? '']
        : [
            name,
            entry.environment ?? name,
            entry.region ?? regionOfFunctionUrl(entry.start_url ?? '') ?? '(AWS_REGION)',
            entry.start_url ?? '',
          ],
    ),
  ];
  const widths = table[0]?.map((_, column) =>
    Math.max(...table.map((row) => (row[column] ?? '').length)),
  );
  out(
    table
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths?.[column] ?? 0))
          .join('  ')
          .trimEnd(),
      )
      .join('\n'),
  );
  return 0;
}

export async function removeRemote(
  configDir: string,
  name: string,
  json: boolean,
  out: Out,
): Promise<number> {
  if (!(await removeRegistryEntry(configDir, name))) {
    const near = closestName(name, await registeredNames(configDir));
    throw new SvcError(
      'ERR_USAGE',
      `no remote environment named "${name}"${near === undefined ? '' : `: did you mean "${near}"?`} (svc remote ls)`,
    );
  }
  out(
    json
      ? JSON.stringify({ name, outcome: 'removed' }, null, 2)
      : `removed remote environment "${name}"`,
  );
  return 0;
}
