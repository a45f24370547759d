/**
 * How tests find real engines: scripts/install-test-engine.sh puts llama-server under
 * .cache/engines/bin, which goes first on the PATH of every process a test starts; a developer's
 * own llama-server on PATH serves when the kit was not installed.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '../../../..');
export const ENGINE_BIN_DIR = join(REPO_ROOT, '.cache', 'engines', 'bin');

/** PATH for child processes: the given directories, then the engine kit, then the inherited PATH. */
export function testPath(...first: string[]): string {
  return [...first, ENGINE_BIN_DIR, process.env['PATH'] ?? ''].join(delimiter);
}

/** Absolute path of the llama-server the tests will run; throws with the fix when there is none. */
export function findLlamaServer(): string {
  for (const dir of testPath().split(delimiter)) {
    const candidate = join(dir, 'llama-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  throw new Error(
    'end-to-end prerequisite missing: llama-server: run scripts/install-test-engine.sh (see CONTRIBUTING.md)',
  );
}
