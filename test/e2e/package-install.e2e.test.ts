/**
 * The published package works (spec §9 rule 3: the contract ships with each release): `npm pack`
 * builds through `prepack`, and the tarball installed into a fresh prefix on this Node (20 in CI)
 * runs `svc --version`, `svc --help` and a loopback daemon, with no EBADENGINE warning and a clean
 * `npm ls`. Dependencies resolve from the npm cache `npm ci` filled (--prefer-offline), so CI
 * needs nothing beyond what `npm ci` fetched.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../support/prerequisites/engines.ts';
import { runToEnd, startProcess } from '../support/processes/processes.ts';
import { tempDir } from '../support/processes/temp-dir.ts';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

describe('the packed and installed svc', () => {
  it('installs cleanly on this Node and runs --version, --help and a loopback daemon', async () => {
    const dir = await tempDir('svc-pack-');
    const env = { ...process.env, npm_config_update_notifier: 'false', SVC_LOG_LEVEL: '' };

    const packed = await runToEnd(NPM, ['pack', '--json', '--pack-destination', dir], {
      cwd: REPO_ROOT,
      env,
    });
    expect(packed.status, packed.stderr).toBe(0);
    const [manifest] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    const files = (manifest?.files ?? []).map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/cli.js',
        'docs/openapi.json',
        'docs/gateway-openapi.json',
        'README.md',
        'package.json',
      ]),
    );
    expect(files.some((file) => file.startsWith('src/') || file.startsWith('test/'))).toBe(false);

    const prefix = join(dir, 'prefix');
    const tarball = join(dir, manifest?.filename ?? '');
    const installed = await runToEnd(
      NPM,
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        tarball,
      ],
      { cwd: dir, env },
    );
    expect(installed.status, installed.stderr).toBe(0);
    expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/EBADENGINE|ERESOLVE/);

    const listed = await runToEnd(NPM, ['ls', '--global', '--prefix', prefix, '--all'], {
      cwd: dir,
      env,
    });
    expect(listed.status, listed.stdout + listed.stderr).toBe(0);
    expect(listed.stdout).not.toMatch(/invalid|UNMET DEPENDENCY|extraneous/);
    expect(listed.stdout).toContain('svc@');

    expect(await readdir(join(prefix, 'bin'))).toContain('svc');
    const svc = join(prefix, 'bin', 'svc');
    const version = await runToEnd(svc, ['--version'], { env });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^\S+\n$/);
    expect(version.stderr).toBe('');
    const help = await runToEnd(svc, ['--help'], { env });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('svc <command> [options]');

    const daemon = startProcess(svc, ['daemon', '--api-addr', '127.0.0.1:0'], {
      cwd: dir,
      env: { ...env, SVC_CONFIG_DIR: join(dir, 'config'), SVC_API_TOKEN: '' },
    });
    const [, url = ''] = await daemon.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
    const status = await fetch(`${url}/v1/status`);
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ state: 'idle', version: version.stdout.trim() });
    process.kill(daemon.pid, 'SIGTERM');
    expect(await daemon.exited()).toBe(0);
  }, 300_000);
});
