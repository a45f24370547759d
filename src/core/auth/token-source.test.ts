import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeEach, describe, expect, it } from 'vitest';

import { tempDir } from '../../../test/support/processes/temp-dir.ts';
import { rejectionOf, thrownBy } from '../../../test/support/results/errors.ts';
import {
  pickTokenSource,
  requireTokenOffLoopback,
  resolveApiToken,
  type TokenInputs,
} from './token-source.ts';

const SECRET = 's3cr3t-token-value';

describe('pickTokenSource (spec §5 rule 2: exactly one source)', () => {
  it('finds no source when none is given', () => {
    expect(pickTokenSource({})).toBeUndefined();
  });

  it.each<[TokenInputs, string]>([
    [{ file: '/t' }, '--api-token-file'],
    [{ env: SECRET }, 'SVC_API_TOKEN'],
    [{ flag: SECRET }, '--api-token'],
  ])('names the single source given (%o)', (inputs, source) => {
    expect(pickTokenSource(inputs)).toBe(source);
  });

  it('counts an empty SVC_API_TOKEN as unset', () => {
    expect(pickTokenSource({ env: '', flag: SECRET })).toBe('--api-token');
  });

  it.each<[TokenInputs, string]>([
    [{ file: '/t', env: SECRET }, '--api-token-file and SVC_API_TOKEN'],
    [{ file: '/t', flag: SECRET }, '--api-token-file and --api-token'],
    [{ env: SECRET, flag: 'other' }, 'SVC_API_TOKEN and --api-token'],
    [
      { file: '/t', env: SECRET, flag: 'other' },
      '--api-token-file and SVC_API_TOKEN and --api-token',
    ],
  ])('refuses two sources at once, naming both and no value (%o)', (inputs, named) => {
    const error = thrownBy(() => pickTokenSource(inputs));
    expect(error.code).toBe('ERR_TWO_TOKEN_SOURCES');
    expect(error.message).toContain(named);
    expect(error.message).not.toContain(SECRET);
    expect(error.kind).toBe('user');
  });
});

describe('resolveApiToken', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir('svc-token-');
  });

  it('returns undefined when no source is given', async () => {
    expect(await resolveApiToken({})).toBeUndefined();
  });

  it('reads the file and trims its contents', async () => {
    const path = join(dir, 'token');
    await writeFile(path, `  ${SECRET}\n\n`);
    expect(await resolveApiToken({ file: path })).toEqual({
      value: SECRET,
      source: '--api-token-file',
    });
  });

  it('refuses an empty file, naming the file', async () => {
    const path = join(dir, 'empty');
    await writeFile(path, ' \n\t\n');
    const error = await rejectionOf(resolveApiToken({ file: path }));
    expect(error.code).toBe('ERR_TOKEN_FILE');
    expect(error.message).toBe(`--api-token-file ${path}: the file is empty`);
  });

  it('refuses an unreadable file, naming the file', async () => {
    const path = join(dir, 'does-not-exist');
    const error = await rejectionOf(resolveApiToken({ file: path }));
    expect(error.code).toBe('ERR_TOKEN_FILE');
    expect(error.message).toBe(`--api-token-file ${path}: cannot read it (ENOENT)`);
  });

  it('refuses a directory given as the file', async () => {
    const error = await rejectionOf(resolveApiToken({ file: dir }));
    expect(error.code).toBe('ERR_TOKEN_FILE');
    expect(error.message).toContain(dir);
  });

  it('takes SVC_API_TOKEN and --api-token verbatim', async () => {
    expect(await resolveApiToken({ env: SECRET })).toEqual({
      value: SECRET,
      source: 'SVC_API_TOKEN',
    });
    expect(await resolveApiToken({ flag: SECRET })).toEqual({
      value: SECRET,
      source: '--api-token',
    });
  });

  it.each([
    [{ flag: '' }, '--api-token: the API token is empty'],
    [{ flag: '   ' }, '--api-token: the API token is empty'],
    [{ env: ` ${SECRET}` }, 'SVC_API_TOKEN: the API token has leading or trailing whitespace'],
    [{ flag: `${SECRET}\u0007` }, '--api-token: the API token contains control characters'],
  ])('refuses a token no Authorization header can carry (%o)', async (inputs, message) => {
    const error = await rejectionOf(resolveApiToken(inputs));
    expect(error.code).toBe('ERR_TOKEN_INVALID');
    expect(error.message).toBe(message);
    expect(error.message).not.toContain(SECRET);
  });

  it('refuses control characters inside a token file without echoing the contents', async () => {
    const path = join(dir, 'binary');
    await writeFile(path, `${SECRET}\u0000tail`);
    const error = await rejectionOf(resolveApiToken({ file: path }));
    expect(error.code).toBe('ERR_TOKEN_INVALID');
    expect(error.message).toContain(path);
    expect(error.message).not.toContain(SECRET);
  });
});

describe('requireTokenOffLoopback (spec §5 rule 3)', () => {
  const token = { value: SECRET, source: '--api-token' } as const;

  it.each(['127.0.0.1', '127.8.9.10', '::1', 'localhost', 'LOCALHOST'])(
    'lets loopback host %s go without a token',
    (host) => {
      expect(() => requireTokenOffLoopback({ host, port: 4242 }, undefined)).not.toThrow();
    },
  );

  it.each(['', '0.0.0.0', '::', '192.168.1.5', 'box.lan'])(
    'refuses non-loopback host "%s" without a token, naming the three ways',
    (host) => {
      const error = thrownBy(() => requireTokenOffLoopback({ host, port: 4242 }, undefined));
      expect(error.code).toBe('ERR_NO_TOKEN_NON_LOOPBACK');
      expect(error.message).toContain('--api-token-file');
      expect(error.message).toContain('SVC_API_TOKEN');
      expect(error.message).toContain('--api-token <value>');
    },
  );

  it('names the address and the loopback switch when the command has one', () => {
    const error = thrownBy(() =>
      requireTokenOffLoopback({ host: '', port: 4242 }, undefined, '--loopback'),
    );
    expect(error.message).toBe(
      'refusing to listen on non-loopback address :4242 without an API token: pass --api-token-file <path>, ' +
        'set SVC_API_TOKEN, or pass --api-token <value>, or bind loopback with --loopback, which needs none',
    );
  });

  it('accepts any listen address once a token is configured', () => {
    expect(() => requireTokenOffLoopback({ host: '0.0.0.0', port: 4242 }, token)).not.toThrow();
  });
});
