/** A project's environment: ENV lines over the process over the .env beside the Svcfile. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { freshDir, svcfile } from '../../../test/support/project-files/project-dirs.ts';
import { rejectionOf } from '../../../test/support/results/errors.ts';
import { unwrap } from './diagnostics.ts';
import { projectEnvironment } from './load.ts';
import { parseSvcfile } from './parse.ts';

describe('projectEnvironment', () => {
  function project(text: string, source: string) {
    return unwrap(parseSvcfile(text, source));
  }

  it('fills unset and empty variables from the .env beside the Svcfile', async () => {
    const dir = await freshDir();
    const path = await svcfile(dir);
    await writeFile(join(dir, '.env'), 'UNSET_VAR=from-dotenv\nEMPTY_VAR=filled\n');
    const env = await projectEnvironment(
      project('PROVIDER llamacpp\n', path),
      { kind: 'file', path },
      { EMPTY_VAR: '', OTHER: 'kept', GONE: undefined },
    );
    expect(env).toEqual({ UNSET_VAR: 'from-dotenv', EMPTY_VAR: 'filled', OTHER: 'kept' });
  });

  it('lets a non-empty process variable win over .env', async () => {
    const dir = await freshDir();
    const path = await svcfile(dir);
    await writeFile(join(dir, '.env'), 'HF_TOKEN=dotenv-value\n');
    const env = await projectEnvironment(
      project('PROVIDER llamacpp\n', path),
      { kind: 'file', path },
      { HF_TOKEN: 'process-value' },
    );
    expect(env['HF_TOKEN']).toBe('process-value');
  });

  it('lets ENV lines override both the process and .env', async () => {
    const dir = await freshDir();
    const path = await svcfile(dir);
    await writeFile(join(dir, '.env'), 'A=dotenv\nB=dotenv\n');
    const env = await projectEnvironment(
      project('PROVIDER llamacpp\nENV A=svcfile\nENV B=svcfile\nENV C=x=y\n', path),
      { kind: 'file', path },
      { A: 'process' },
    );
    expect(env).toMatchObject({ A: 'svcfile', B: 'svcfile', C: 'x=y' });
  });

  it('reads the .env beside the Svcfile, not one in the process cwd', async () => {
    const dir = await freshDir();
    const path = await svcfile(join(dir, 'proj'));
    await writeFile(join(dir, '.env'), 'WRONG=1\n');
    await writeFile(join(dir, 'proj', '.env'), 'RIGHT=1\n');
    const env = await projectEnvironment(
      project('PROVIDER llamacpp\n', path),
      { kind: 'file', path },
      {},
    );
    expect(env).toEqual({ RIGHT: '1' });
  });

  it('reads no .env for a URL origin', async () => {
    const env = await projectEnvironment(
      project('PROVIDER vllm\nENV X=1\n', 'http://127.0.0.1:1/Svcfile'),
      { kind: 'url', url: 'http://127.0.0.1:1/Svcfile' },
      { P: 'p' },
    );
    expect(env).toEqual({ P: 'p', X: '1' });
  });

  it('is fine without a .env', async () => {
    const dir = await freshDir();
    const path = await svcfile(dir);
    const env = await projectEnvironment(
      project('PROVIDER llamacpp\nENV X=1\n', path),
      { kind: 'file', path },
      { P: 'p' },
    );
    expect(env).toEqual({ P: 'p', X: '1' });
  });

  it('fails with ERR_PROJECT naming a .env it cannot read', async () => {
    const dir = await freshDir();
    const path = await svcfile(dir);
    await mkdir(join(dir, '.env'));
    const error = await rejectionOf(
      projectEnvironment(project('PROVIDER llamacpp\n', path), { kind: 'file', path }, {}),
    );
    expect(error.code).toBe('ERR_PROJECT');
    expect(error.message).toBe(`cannot read ${join(dir, '.env')} (EISDIR)`);
  });

  it('does not modify the process env object it is given', async () => {
    const dir = await freshDir();
    const path = await svcfile(dir);
    await writeFile(join(dir, '.env'), 'NEW=1\n');
    const processEnv = { KEEP: 'k' };
    await projectEnvironment(
      project('PROVIDER llamacpp\nENV KEEP=changed\n', path),
      { kind: 'file', path },
      processEnv,
    );
    expect(processEnv).toEqual({ KEEP: 'k' });
  });
});
