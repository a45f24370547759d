/**
 * What a script calling `svc serve` can read from its exit status (docs/cli.md): the engine's own
 * status when the engine exits, however early; 2 when something the Svcfile names is not on this
 * machine (input to fix); 1 when svc could not start the engine process (a run that failed).
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FAKE_BIN_DIR } from '../support/svc/daemon.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

async function project(svcfile: string): Promise<string> {
  const dir = await tempDir();
  await writeFile(join(dir, 'Svcfile'), svcfile);
  return dir;
}

describe('svc serve exit statuses', () => {
  // Whether the exit lands before svc has seen the engine start is a race (serve has no start
  // window); both sides of it give the engine's status (run-serve.test.ts pins the early side).
  it("exits with the engine's status when it exits at once, its stderr shown and no word about a log", async () => {
    const dir = await project('PROVIDER mtplx\nMODEL org/m\n');
    const result = await runSvc(['serve', dir], {
      env: {
        PATH: `${FAKE_BIN_DIR}:${process.env['PATH'] ?? ''}`,
        FAKE_ENGINE: 'exit-now',
        SVC_CONFIG_DIR: join(dir, 'c'),
      },
    });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain('fake-engine: failing on purpose');
    expect(result.stderr).toMatch(/svc serve stopped: the engine exited .*\(.*3\)\n$/);
    expect(result.stderr).not.toContain('wrote nothing to its log');
  });

  it('exits 1 when the engine process cannot be started, without claiming a log it has not got', async () => {
    const dir = await project('PROVIDER mtplx\nMODEL org/m\n');
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'mtplx'), '#!/nonexistent/interpreter\n');
    await chmod(join(bin, 'mtplx'), 0o755);
    const result = await runSvc(['serve', dir], {
      env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, SVC_CONFIG_DIR: join(dir, 'c') },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`svc: could not start ${join(bin, 'mtplx')}`);
    expect(result.stderr).not.toContain('wrote nothing to its log');
  });

  it('exits 2 when the model file the Svcfile names is not there', async () => {
    const dir = await project('PROVIDER llamacpp\nMODEL ./absent.gguf\n');
    const result = await runSvc(['serve', dir], { env: { SVC_CONFIG_DIR: join(dir, 'c') } });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/svc: the model file \S*absent\.gguf does not exist/);
  });
});
