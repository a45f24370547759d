/** Temp directories for tests, each removed when the test that made it ends, pass or fail. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { atEnd } from './cleanup.ts';

/**
 * A new empty directory under the OS temp dir, removed when the current test ends (made inside
 * sharedByFile(), when the file's tests end).
 */
export async function tempDir(prefix = 'svc-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  atEnd(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
