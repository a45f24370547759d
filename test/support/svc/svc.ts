/**
 * Runs the built `svc` (dist/cli.js) the way a user does, in a private config directory so no
 * test reads or writes the developer's own aliases.
 */
import type { SpawnOptions } from 'node:child_process';
import { join } from 'node:path';

import { REPO_ROOT, testPath } from '../prerequisites/engines.ts';
import { runToEnd } from '../processes/processes.ts';

export { tempDir } from '../processes/temp-dir.ts';

export const SVC = join(REPO_ROOT, 'dist', 'cli.js');

export interface SvcRun {
  cwd?: string;
  env?: Record<string, string | undefined>;
}

export function runSvc(args: readonly string[], options: SvcRun = {}): ReturnType<typeof runToEnd> {
  const spawnOptions: SpawnOptions = {
    env: { ...process.env, PATH: testPath(), SVC_LOG_LEVEL: '', SVC_ALIAS: '', ...options.env },
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  };
  return runToEnd(SVC, args, spawnOptions);
}
