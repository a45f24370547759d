/**
 * The built executable: version, help and usage errors, run as a user runs it.
 */
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../support/prerequisites/engines.ts';
import { runToEnd } from '../support/processes/processes.ts';

const SVC = join(REPO_ROOT, 'dist', 'cli.js');

function svc(...args: string[]): ReturnType<typeof runToEnd> {
  return runToEnd(SVC, args, { env: { ...process.env, SVC_LOG_LEVEL: '' } });
}

describe('svc executable', () => {
  it('prints the build-time version, dev when none was set', async () => {
    const expected = process.env['SVC_VERSION'] ?? '';
    const result = await svc('--version');
    expect(result).toEqual({
      status: 0,
      stdout: `${expected === '' ? 'dev' : expected}\n`,
      stderr: '',
    });
    expect((await svc('-V')).stdout).toBe(result.stdout);
  });

  it('prints help on --help and exits 0', async () => {
    const result = await svc('--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage:\n  svc <command> [options]');
    expect(result.stderr).toBe('');
  });

  it('prints help and exits 2 when no command is given', async () => {
    const result = await svc();
    expect(result.status).toBe(2);
    expect(result.stdout).toContain('Usage:');
  });

  it('refuses an unknown command with a usage error on stderr', async () => {
    const result = await svc('frobnicate');
    expect(result).toEqual({
      status: 2,
      stdout: '',
      stderr: 'svc: unknown command "frobnicate": run svc --help for the commands\n',
    });
  });

  it('refuses an unknown top-level option', async () => {
    const result = await svc('--frobnicate');
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'svc: unknown option "--frobnicate": run svc --help for the commands\n',
    );
  });

  it('refuses a misspelt command or flag naming the closest one (docs/design.md D20)', async () => {
    expect(await svc('deamon')).toEqual({
      status: 2,
      stdout: '',
      stderr:
        'svc: unknown command "deamon": did you mean "daemon"? run svc --help for the commands\n',
    });
    for (const command of ['daemon', 'serve', 'gateway', 'alias']) {
      const result = await svc(command, '--lopback');
      expect(result.status).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(/^svc: unknown option --lopback/);
    }
    const daemon = await svc('daemon', '--lopback');
    expect(daemon.stderr).toBe(
      'svc: unknown option --lopback: did you mean --loopback? (see svc daemon --help)\n',
    );
    const fleet = await svc('fleet', 'status', '--flet', 'x.yaml');
    expect(fleet.stderr).toBe(
      'svc: unknown option --flet: did you mean --fleet? (see svc fleet --help)\n',
    );
    expect((await svc('fleet', 'statsu')).stderr).toContain('did you mean "status"?');
  });
});
