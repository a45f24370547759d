/** The config dir for this process, from its environment (docs/design.md "Names"). */
import { homedir } from 'node:os';

import { resolveConfigDir } from './config-dir.ts';

export function configDirFor(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string {
  return resolveConfigDir({ env, home: homedir(), cwd });
}
