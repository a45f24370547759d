import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeEach, describe, expect, it } from 'vitest';

import { tempDir } from '../../../test/support/processes/temp-dir.ts';
import { rejectionOf } from '../../../test/support/results/errors.ts';
import { writeFileAtomic } from './atomic-write.ts';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('svc-atomic-');
});

async function mode(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

describe('writeFileAtomic', () => {
  it('writes string contents', async () => {
    const path = join(dir, 'state.json');
    await writeFileAtomic(path, '{"a":1}\n');
    expect(await readFile(path, 'utf8')).toBe('{"a":1}\n');
  });

  it('writes byte contents', async () => {
    const path = join(dir, 'state.bin');
    await writeFileAtomic(path, new Uint8Array([0, 1, 2, 255]));
    expect([...(await readFile(path))]).toEqual([0, 1, 2, 255]);
  });

  it('replaces an existing file, shorter contents included', async () => {
    const path = join(dir, 'state.json');
    await writeFile(path, 'old contents that are rather long');
    await writeFileAtomic(path, 'new');
    expect(await readFile(path, 'utf8')).toBe('new');
  });

  it('leaves no temp files behind', async () => {
    const path = join(dir, 'state.json');
    await writeFileAtomic(path, 'one');
    await writeFileAtomic(path, 'two');
    await writeFileAtomic(path, 'three');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('creates the file with mode 0600', async () => {
    const path = join(dir, 'secret.json');
    await writeFileAtomic(path, 'key');
    expect(await mode(path)).toBe(0o600);
  });

  it('leaves a replaced file at mode 0600, whatever mode the old one had', async () => {
    const path = join(dir, 'secret.json');
    await writeFile(path, 'old', { mode: 0o644 });
    await writeFileAtomic(path, 'new');
    expect(await mode(path)).toBe(0o600);
  });

  it('creates missing parent directories, each 0700', async () => {
    const path = join(dir, 'a', 'b', 'state.json');
    await writeFileAtomic(path, 'deep');
    expect(await readFile(path, 'utf8')).toBe('deep');
    expect(await mode(join(dir, 'a'))).toBe(0o700);
    expect(await mode(join(dir, 'a', 'b'))).toBe(0o700);
  });

  it('fails with ERR_STATE_WRITE naming the path when the parent is a regular file', async () => {
    const blocker = join(dir, 'blocker');
    await writeFile(blocker, 'not a directory');
    const path = join(blocker, 'state.json');
    const error = await rejectionOf(writeFileAtomic(path, 'x'));
    expect(error.code).toBe('ERR_STATE_WRITE');
    expect(error.kind).toBe('system');
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/^cannot write .* \((ENOTDIR|EEXIST)\)$/);
    expect(error.cause).toBeInstanceOf(Error);
    expect(await readdir(dir)).toEqual(['blocker']);
    expect(await readFile(blocker, 'utf8')).toBe('not a directory');
  });

  it('removes its temp file when the final rename fails (target is a directory)', async () => {
    const path = join(dir, 'target');
    await mkdir(path);
    await writeFile(join(path, 'inside'), 'keep');
    const error = await rejectionOf(writeFileAtomic(path, 'x'));
    expect(error.code).toBe('ERR_STATE_WRITE');
    expect(error.message).toContain(path);
    expect(await readdir(dir)).toEqual(['target']);
    expect(await readdir(path)).toEqual(['inside']);
  });
});
