/**
 * Writes a state file so that a crash or a kill at any moment leaves either the old contents or
 * the new, never a torn file: write a private temp file beside the target, flush it, rename it
 * over the target. Directories are created 0700 and files 0600 (they may hold keys).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { SvcError } from '../errors.ts';

export async function writeFileAtomic(path: string, contents: string | Uint8Array): Promise<void> {
  const directory = dirname(path);
  const temp = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(contents);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    // Best effort: when the directory itself is the problem there is no temp file to remove.
    await rm(temp, { force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code ?? 'write failed';
    throw new SvcError('ERR_STATE_WRITE', `cannot write ${path} (${code})`, { cause: error });
  }
}
