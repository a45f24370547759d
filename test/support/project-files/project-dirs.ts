/**
 * Project loading's test set-up: fresh directories by their real path, a Svcfile written into
 * one, and a locate context that counts how often the alias table is read.
 */
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { AliasTable } from '../../../src/core/project/aliases.ts';
import type { LocateContext } from '../../../src/core/project/load.ts';
import { tempDir } from '../processes/temp-dir.ts';

/** A fresh empty directory, by its real path (no symlinked /tmp), removed when the test ends. */
export async function freshDir(): Promise<string> {
  return realpath(await tempDir('svc-load-'));
}

/** Writes `text` as the Svcfile in `dir` (made when missing); its path. */
export async function svcfile(dir: string, text = 'PROVIDER llamacpp\n'): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'Svcfile');
  await writeFile(path, text);
  return path;
}

/** A locate context over `cwd`, `env` and an alias table, counting the table's reads. */
export function context(
  cwd: string,
  env: Record<string, string | undefined> = {},
  table: AliasTable = {},
): LocateContext & { calls: () => number } {
  let calls = 0;
  return {
    cwd,
    env,
    aliases: () => {
      calls += 1;
      return Promise.resolve(table);
    },
    calls: () => calls,
  };
}
