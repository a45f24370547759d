/**
 * Vitest global setup for the end-to-end project: makes `npm test` self-sufficient on a fresh
 * clone (README's two commands, on a machine with only Node and git). It installs the test engine
 * (scripts/install-test-engine.sh, a no-op when present), tmux (the serve view is tested in a
 * real terminal) and chromium (the fleet page is tested in a headless browser) where it can, and
 * otherwise stops the run at once with one line naming what to install, instead of letting dozens
 * of tests fail with opaque messages.
 *
 * Packages go in without their recommended ones: a headless browser needs none of chromium's
 * desktop recommends (printing, mDNS, notifications, Perl), which are some 120 packages more on a
 * bare Debian. The one font is named instead of left to chance: the fleet page's screenshot and its
 * phone-width check lay out text, and DejaVu is what fontconfig picks first on Debian.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_ROOT } from './engines.ts';

/** The first line of every failure caused by a missing prerequisite starts with this. */
export const MISSING = 'end-to-end prerequisite missing:';

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(command, args, {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
}

function lastLine(text: string | null | undefined): string {
  return (text ?? '').trim().split('\n').at(-1) ?? '';
}

function ensureBuild(): void {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) {
    throw new Error(`${MISSING} dist/cli.js: run npm run build (npm run test:e2e does it first)`);
  }
}

function ensureEngine(): void {
  const result = run('bash', [join(REPO_ROOT, 'scripts', 'install-test-engine.sh')]);
  process.stderr.write(result.stderr);
  if (result.status !== 0) {
    throw new Error(
      `${MISSING} llama-server: scripts/install-test-engine.sh failed (${lastLine(result.stderr) || `exit ${String(result.status)}`}); put a llama-server on PATH or fix that and rerun`,
    );
  }
}

/** `command` on PATH, installing Debian's `packages` with apt-get when missing and root (CI is). */
function ensureAptPackages(command: string, packages: readonly string[], why: string): void {
  if (has(command)) {
    return;
  }
  const names = packages.join(' ');
  const root = process.getuid?.() === 0;
  if (root && has('apt-get')) {
    process.stderr.write(`e2e setup: installing ${names} with apt-get (${why})\n`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const updated = run('apt-get', ['update', '-qq'], env);
    const installed =
      updated.status === 0
        ? run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], env)
        : updated;
    if (installed.status === 0 && has(command)) {
      return;
    }
    throw new Error(
      `${MISSING} ${command}: apt-get install ${names} failed (${lastLine(installed.stderr)}); install ${names} and rerun`,
    );
  }
  throw new Error(
    `${MISSING} ${command}: install it (apt-get install --no-install-recommends ${names}) and rerun (${why})`,
  );
}

export default function setup(): void {
  ensureBuild();
  ensureEngine();
  ensureAptPackages('tmux', ['tmux'], 'the serve view is tested in a real terminal');
  ensureAptPackages(
    'chromium',
    ['chromium', 'fonts-dejavu-core'],
    'the fleet page is tested in a real browser',
  );
}
