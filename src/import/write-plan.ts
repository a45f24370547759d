/**
 * Writing an import's files: every target is checked first, so a refusal (a file exists and
 * --force was not given) writes nothing; then each file is written atomically
 * (core/fs/atomic-write.ts), so an interrupted import never leaves a torn Svcfile.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';

import { SvcError } from '../core/errors.ts';
import { writeFileAtomic } from '../core/fs/atomic-write.ts';
import type { PlannedFile } from './translate.ts';

/** The planned paths that already exist under `directory`. */
export async function existingTargets(
  directory: string,
  files: readonly PlannedFile[],
): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) {
    const exists = await stat(join(directory, file.path)).then(
      () => true,
      () => false,
    );
    if (exists) {
      found.push(join(directory, file.path));
    }
  }
  return found;
}

/** Writes the plan; refuses before writing anything when a target exists and `force` is off. */
export async function writePlan(
  directory: string,
  files: readonly PlannedFile[],
  force: boolean,
): Promise<string[]> {
  const existing = await existingTargets(directory, files);
  if (existing.length > 0 && !force) {
    throw new SvcError(
      'ERR_IMPORT',
      `the import would overwrite ${existing.join(', ')}: pass --force to replace ${existing.length === 1 ? 'it' : 'them'}, or --out <dir> for another directory (nothing was written)`,
    );
  }
  const written: string[] = [];
  for (const file of files) {
    const path = join(directory, file.path);
    await writeFileAtomic(path, file.text);
    written.push(path);
  }
  return written;
}
