/**
 * Where README's "Try it" runs in a test: a directory laid out as the quick start leaves a
 * checkout (`~/svc` in the docs: dist/, the engine kit, .cache/demo/tiny.gguf, `svc` on PATH),
 * and `npm run demo` running over it, as the quick start leaves it.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';

import { writeTinyModel } from '../models/tiny-model.ts';
import { ENGINE_BIN_DIR, REPO_ROOT, testPath } from '../prerequisites/engines.ts';
import { killSurvivorsAfterTest, processTree } from '../processes/process-tree.ts';
import { startProcess, type TestProcess } from '../processes/processes.ts';
import { tempDir } from '../processes/temp-dir.ts';
import { eventually } from '../time/eventually.ts';

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

export interface RunningDemo {
  readonly demo: TestProcess;
  /** The port its gateway took (SVC_DEMO_PORT=0: a free one, where a reader's is 4000). */
  readonly port: number;
}

/**
 * `npm run demo` with its files in the checkout's .cache/demo, up and serving: the script npm
 * runs after its build step (dist/ is already built, and rebuilding it would pull it from under
 * other tests). Its whole tree is killed by PID when the test ends, whatever happened.
 */
export async function startDemo(root: string): Promise<RunningDemo> {
  const demo = startProcess(process.execPath, ['--import', 'tsx', join('scripts', 'demo.ts')], {
    // tsx resolves from the repository; the demo writes only under SVC_DEMO_DIR.
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PATH: testPath(),
      SVC_DEMO_PORT: '0',
      SVC_DEMO_DIR: join(root, '.cache', 'demo'),
    },
  });
  const [, port = '0'] = await demo.waitFor(/gateway\s+http:\/\/127\.0\.0\.1:(\d+)/, 120_000);
  killSurvivorsAfterTest(processTree(demo.pid));
  await demo.waitFor(/Ctrl\+C stops the gateway/, 120_000);
  killSurvivorsAfterTest(processTree(demo.pid));
  return { demo, port: Number(port) };
}
