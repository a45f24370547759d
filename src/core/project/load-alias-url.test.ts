/**
 * Locating a project by a registered alias or a URL: notes naming what was used, a path of
 * the same spelling first, and no network for a URL until it is read.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { serveLoopback } from '../../../test/support/http/http-server.ts';
import { context, freshDir, svcfile } from '../../../test/support/project-files/project-dirs.ts';
import { rejectionOf } from '../../../test/support/results/errors.ts';
import { locateProject, originOf } from './load.ts';

describe('locateProject with an alias', () => {
  it('uses a registered alias, with a note naming it and its target', async () => {
    const cwd = await freshDir();
    const target = await svcfile(join(await freshDir(), 'models'));
    const located = await locateProject('n', context(cwd, {}, { n: target }));
    expect(located.origin).toEqual({ kind: 'file', path: target });
    expect(located.alias).toBe('n');
    expect(located.notes).toEqual([`Using alias "n" (${target})`]);
  });

  it('resolves an alias that points at a directory to its Svcfile', async () => {
    const cwd = await freshDir();
    const dir = join(await freshDir(), 'models');
    const target = await svcfile(dir);
    const located = await locateProject('n', context(cwd, {}, { n: dir }));
    expect(located.origin).toEqual({ kind: 'file', path: target });
  });

  it('resolves an alias that points at a URL without touching the network', async () => {
    const located = await locateProject(
      'remote',
      context(await freshDir(), {}, { remote: 'http://127.0.0.1:9/team/' }),
    );
    expect(located.origin).toEqual({ kind: 'url', url: 'http://127.0.0.1:9/team/Svcfile' });
    expect(located.notes).toEqual(['Using alias "remote" (http://127.0.0.1:9/team/Svcfile)']);
  });

  it('prefers a path of the same spelling in cwd, and says so', async () => {
    const cwd = await freshDir();
    const local = await svcfile(join(cwd, 'qwen'));
    const aliased = await svcfile(join(await freshDir(), 'elsewhere'));
    const located = await locateProject('qwen', context(cwd, {}, { qwen: aliased }));
    expect(located.origin).toEqual({ kind: 'file', path: local });
    expect(located.alias).toBeUndefined();
    expect(located.notes).toHaveLength(1);
    expect(located.notes[0]).toContain(
      'names both a path here and a registered alias; using the path',
    );
    expect(located.notes[0]).toContain('"qwen"');
  });

  it('uses the alias when the same-named directory in cwd holds no Svcfile', async () => {
    const cwd = await freshDir();
    await mkdir(join(cwd, 'qwen'));
    const aliased = await svcfile(join(await freshDir(), 'elsewhere'));
    const located = await locateProject('qwen', context(cwd, {}, { qwen: aliased }));
    expect(located.origin).toEqual({ kind: 'file', path: aliased });
    expect(located.alias).toBe('qwen');
  });

  it('fails on an alias whose target is gone, saying how to re-point or delete it', async () => {
    const cwd = await freshDir();
    const gone = join(await freshDir(), 'deleted', 'Svcfile');
    const error = await rejectionOf(locateProject('old', context(cwd, {}, { old: gone })));
    expect(error.code).toBe('ERR_PROJECT_NOT_FOUND');
    expect(error.message).toContain('alias "old"');
    expect(error.message).toContain(gone);
    expect(error.message).toContain('svc alias --force -n old');
    expect(error.message).toContain('svc alias --delete old');
  });

  it('fails on an unknown name that is no path either', async () => {
    const cwd = await freshDir();
    const error = await rejectionOf(locateProject('nope', context(cwd, {}, { other: '/o' })));
    expect(error.code).toBe('ERR_PROJECT_NOT_FOUND');
    expect(error.message).toContain('nope');
  });

  it('does not consult the aliases for a target that cannot be an alias', async () => {
    const cwd = await freshDir();
    await svcfile(join(cwd, 'a'));
    const ctx = context(cwd, {}, {});
    await locateProject('a/Svcfile', ctx);
    expect(ctx.calls()).toBe(0);
  });
});

describe('locateProject with a URL', () => {
  it('takes an http URL as given, without fetching it', async () => {
    let hits = 0;
    const base = await serveLoopback((_request, reply) => {
      hits += 1;
      reply.end('PROVIDER vllm\n');
    });
    const url = `${base}/x/Svcfile`;
    const ctx = context(await freshDir());
    expect(await locateProject(url, ctx)).toEqual({ origin: { kind: 'url', url }, notes: [] });
    expect(ctx.calls()).toBe(0);
    expect(hits).toBe(0);
  });

  it('appends Svcfile to a URL ending in a slash', async () => {
    const located = await locateProject('http://127.0.0.1:1/team/', context(await freshDir()));
    expect(located.origin).toEqual({ kind: 'url', url: 'http://127.0.0.1:1/team/Svcfile' });
  });

  it('originOf treats https the same way', async () => {
    expect(await originOf('https://127.0.0.1/a/', await freshDir())).toEqual({
      kind: 'url',
      url: 'https://127.0.0.1/a/Svcfile',
    });
  });
});
