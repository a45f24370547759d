/**
 * Locating a project (spec §1.1): how a target that is nothing, SVC_ALIAS or a path names its
 * Svcfile, and how an origin is described.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { context, freshDir, svcfile } from '../../../test/support/project-files/project-dirs.ts';
import { rejectionOf } from '../../../test/support/results/errors.ts';
import { describeOrigin, isUrl, locateProject } from './load.ts';

describe('isUrl and describeOrigin', () => {
  it.each<[string, boolean]>([
    ['http://h/Svcfile', true],
    ['https://h/Svcfile', true],
    ['HTTPS://h/Svcfile', true],
    ['ftp://h/Svcfile', false],
    ['./Svcfile', false],
    ['qwen', false],
  ])('isUrl(%j) is %s', (text, expected) => {
    expect(isUrl(text)).toBe(expected);
  });

  it('describes a file by its path and a URL by itself', () => {
    expect(describeOrigin({ kind: 'file', path: '/a/Svcfile' })).toBe('/a/Svcfile');
    expect(describeOrigin({ kind: 'url', url: 'http://h/Svcfile' })).toBe('http://h/Svcfile');
  });
});

describe('locateProject with no target', () => {
  it('uses ./Svcfile in cwd and asks for no aliases', async () => {
    const cwd = await freshDir();
    const path = await svcfile(cwd);
    const ctx = context(cwd);
    expect(await locateProject(undefined, ctx)).toEqual({
      origin: { kind: 'file', path },
      notes: [],
    });
    expect(ctx.calls()).toBe(0);
  });

  it('treats an empty SVC_ALIAS as unset', async () => {
    const cwd = await freshDir();
    const path = await svcfile(cwd);
    const located = await locateProject(undefined, context(cwd, { SVC_ALIAS: '' }));
    expect(located.origin).toEqual({ kind: 'file', path });
  });

  it('fails with ERR_PROJECT_NOT_FOUND mentioning SVC_ALIAS when there is no Svcfile', async () => {
    const cwd = await freshDir();
    const error = await rejectionOf(locateProject(undefined, context(cwd)));
    expect(error.code).toBe('ERR_PROJECT_NOT_FOUND');
    expect(error.kind).toBe('user');
    expect(error.message).toContain(cwd);
    expect(error.message).toContain('SVC_ALIAS');
  });

  it('fails when ./Svcfile is a directory', async () => {
    const cwd = await freshDir();
    await mkdir(join(cwd, 'Svcfile'));
    const error = await rejectionOf(locateProject(undefined, context(cwd)));
    expect(error.code).toBe('ERR_PROJECT_NOT_FOUND');
  });

  it('uses the alias SVC_ALIAS names, with a note', async () => {
    const cwd = await freshDir();
    const target = await svcfile(join(await freshDir(), 'qwen'));
    const located = await locateProject(
      undefined,
      context(cwd, { SVC_ALIAS: 'qwen' }, { qwen: target }),
    );
    expect(located.origin).toEqual({ kind: 'file', path: target });
    expect(located.alias).toBe('qwen');
    expect(located.notes).toHaveLength(1);
    expect(located.notes[0]?.startsWith('Using SVC_ALIAS "qwen"')).toBe(true);
    expect(located.notes[0]).toContain(target);
  });

  it('lets SVC_ALIAS win over a Svcfile in cwd', async () => {
    const cwd = await freshDir();
    await svcfile(cwd);
    const target = await svcfile(join(await freshDir(), 'qwen'));
    const located = await locateProject(
      undefined,
      context(cwd, { SVC_ALIAS: 'qwen' }, { qwen: target }),
    );
    expect(located.origin).toEqual({ kind: 'file', path: target });
  });

  it('fails when SVC_ALIAS names an unregistered alias, even with a Svcfile in cwd', async () => {
    const cwd = await freshDir();
    await svcfile(cwd);
    const error = await rejectionOf(
      locateProject(undefined, context(cwd, { SVC_ALIAS: 'x' }, { other: '/o/Svcfile' })),
    );
    expect(error.code).toBe('ERR_PROJECT_NOT_FOUND');
    expect(error.message).toContain('SVC_ALIAS names "x", which is not a registered alias');
  });

  it('fails when SVC_ALIAS is not alias-shaped', async () => {
    const cwd = await freshDir();
    const error = await rejectionOf(
      locateProject(undefined, context(cwd, { SVC_ALIAS: 'a/b' }, { 'a/b': '/o/Svcfile' })),
    );
    expect(error.code).toBe('ERR_PROJECT_NOT_FOUND');
    expect(error.message).toContain('SVC_ALIAS names "a/b", which is not a registered alias');
  });

  it('fails when the SVC_ALIAS alias points at a file that is gone', async () => {
    const cwd = await freshDir();
    const gone = join(cwd, 'gone', 'Svcfile');
    const error = await rejectionOf(
      locateProject(undefined, context(cwd, { SVC_ALIAS: 'qwen' }, { qwen: gone })),
    );
    expect(error.code).toBe('ERR_PROJECT_NOT_FOUND');
    expect(error.message).toContain('alias "qwen"');
    expect(error.message).toContain(gone);
  });
});

describe('locateProject with a path', () => {
  it('takes a file path relative to cwd', async () => {
    const cwd = await freshDir();
    const path = await svcfile(join(cwd, 'sub'));
    expect(await locateProject('sub/Svcfile', context(cwd))).toEqual({
      origin: { kind: 'file', path },
      notes: [],
    });
  });

  it('takes a file of any name', async () => {
    const cwd = await freshDir();
    const path = join(cwd, 'qwen.svc');
    await writeFile(path, 'PROVIDER vllm\n');
    const located = await locateProject('./qwen.svc', context(cwd));
    expect(located.origin).toEqual({ kind: 'file', path });
  });

  it('takes an absolute file path, whatever cwd is', async () => {
    const path = await svcfile(join(await freshDir(), 'abs'));
    const located = await locateProject(path, context(await freshDir()));
    expect(located.origin).toEqual({ kind: 'file', path });
    expect(located.notes).toEqual([]);
  });

  it('takes a directory holding a Svcfile, relative or absolute', async () => {
    const cwd = await freshDir();
    const path = await svcfile(join(cwd, 'proj'));
    expect((await locateProject('proj', context(cwd))).origin).toEqual({ kind: 'file', path });
    expect((await locateProject('proj/', context(cwd))).origin).toEqual({ kind: 'file', path });
    expect((await locateProject(join(cwd, 'proj'), context(await freshDir()))).origin).toEqual({
      kind: 'file',
      path,
    });
    expect((await locateProject('.', context(join(cwd, 'proj')))).origin).toEqual({
      kind: 'file',
      path,
    });
  });

  it('fails on a directory without a Svcfile, naming the target', async () => {
    const cwd = await freshDir();
    await mkdir(join(cwd, 'empty'));
    const error = await rejectionOf(locateProject('empty', context(cwd)));
    expect(error.code).toBe('ERR_PROJECT_NOT_FOUND');
    expect(error.message).toContain('empty');
  });

  it('fails on a path that does not exist', async () => {
    const cwd = await freshDir();
    const error = await rejectionOf(locateProject('./nowhere/Svcfile', context(cwd)));
    expect(error.code).toBe('ERR_PROJECT_NOT_FOUND');
    expect(error.message).toContain('./nowhere/Svcfile');
  });
});
