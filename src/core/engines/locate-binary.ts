/**
 * Finds an engine's executable: each of its names on PATH, then its fixed install locations
 * (oMLX's app bundle). "A runner this host cannot serve" is one whose binary is not found here
 * (GUIDE D6).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

import { ENGINES, type Runner } from './engine-table.ts';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function locateBinary(runner: Runner, pathVariable: string | undefined): string | undefined {
  const engine = ENGINES[runner];
  const dirs = (pathVariable ?? '').split(delimiter).filter((dir) => dir !== '' && isAbsolute(dir));
  for (const name of engine.binaries) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return engine.fallbackPaths.find(isExecutable);
}
