/**
 * Where README's "Try it" runs in a test: a directory laid out as the quick start leaves a
 * checkout (`~/svc` in the docs: dist/, the engine kit, .cache/demo/tiny.gguf, `svc` on PATH).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';

import { ENGINE_BIN_DIR, REPO_ROOT } from './engines.ts';
import { eventually } from './eventually.ts';
import { tempDir } from './temp-dir.ts';
import { writeTinyModel } from './tiny-model.ts';

/** A directory laid out as the quick start leaves a checkout (`~/svc` in the docs). */
export async function checkout(): Promise<string> {
  const root = await tempDir('svc-checkout-');
  await symlink(join(REPO_ROOT, 'dist'), join(root, 'dist'));
  await mkdir(join(root, '.cache', 'demo'), { recursive: true });
  if (existsSync(ENGINE_BIN_DIR)) {
    await symlink(join(ENGINE_BIN_DIR, '..'), join(root, '.cache', 'engines'));
  }
  await writeTinyModel(join(root, '.cache', 'demo', 'tiny.gguf'));
  // `svc` on PATH, as `npm link` or an installed package gives it.
  await mkdir(join(root, 'bin'));
  await symlink(join(REPO_ROOT, 'dist', 'cli.js'), join(root, 'bin', 'svc'));
  return root;
}

/** Waits until a background job has written `count` whole lines to the file at `path`. */
export async function linesOf(path: string, count: number): Promise<void> {
  await eventually(
    () => readFile(path, 'utf8').catch(() => ''),
    (text) => text.split('\n').length > count,
    `${count} whole lines in ${path}`,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}
