/** Temp directories for tests, each removed when the test that made it ends, pass or fail. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { onTestFinished } from 'vitest';

/**
 * A new empty directory under the OS temp dir, removed when the current test ends. Call it from a
 * test or a `beforeEach` hook (not `beforeAll`: there is no current test there).
 */
export async function tempDir(prefix = 'svc-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return dir;
}
