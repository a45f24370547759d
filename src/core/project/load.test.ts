import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { rejectionOf } from '../../../test/support/errors.ts';
import { serveLoopback } from '../../../test/support/http-server.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import type { AliasTable } from './aliases.ts';
import { unwrap } from './diagnostics.ts';
import {
  describeOrigin,
  isUrl,
  type LocateContext,
  locateProject,
  type Origin,
  originOf,
  presetLocation,
  projectEnvironment,
  readOrigin,
  readPreset,
} from './load.ts';
import { parseSvcfile } from './parse.ts';

/** A fresh empty directory, by its real path (no symlinked /tmp), removed when the test ends. */
async function freshDir(): Promise<string> {
  return realpath(await tempDir('svc-load-'));
}

async function svcfile(dir: string, text = 'PROVIDER llamacpp\n'): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'Svcfile');
  await writeFile(path, text);
  return path;
}

function context(
  cwd: string,
  env: Record<string, string | undefined> = {},
  table: AliasTable = {},
): LocateContext & { calls: () => number } {
  let calls = 0;
  return {
    cwd,
    env,
    aliases: () => {
      calls += 1;
      return Promise.resolve(table);
    },
    calls: () => calls,
  };
}

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

describe('readOrigin and readPreset', () => {
  it('reads a file origin', async () => {
    const path = await svcfile(await freshDir(), 'PROVIDER omlx\n');
    expect(await readOrigin({ kind: 'file', path })).toBe('PROVIDER omlx\n');
  });

  it('fails on a missing file with ERR_PROJECT_NOT_FOUND naming it', async () => {
    const path = join(await freshDir(), 'Svcfile');
    const error = await rejectionOf(readOrigin({ kind: 'file', path }));
    expect(error.code).toBe('ERR_PROJECT_NOT_FOUND');
    expect(error.message).toBe(`cannot read ${path} (ENOENT)`);
  });

  it('serves a URL origin through fetchText', async () => {
    const seen: string[] = [];
    const base = await serveLoopback((request, reply) => {
      seen.push(request.url ?? '');
      if (request.url === '/missing') {
        reply.statusCode = 404;
        reply.end();
        return;
      }
      reply.end('PROVIDER vllm\nMODEL m\n');
    });
    expect(await readOrigin({ kind: 'url', url: `${base}/x/Svcfile` })).toBe(
      'PROVIDER vllm\nMODEL m\n',
    );
    expect(seen).toEqual(['/x/Svcfile']);
    const error = await rejectionOf(readOrigin({ kind: 'url', url: `${base}/missing` }));
    expect(error.code).toBe('ERR_FETCH');
    expect(error.message).toBe(`fetching ${base}/missing: HTTP 404: not found`);
  });

  it('names the preset when reading it fails', async () => {
    const path = join(await freshDir(), 'preset.ini');
    const error = await rejectionOf(readPreset({ kind: 'file', path }));
    expect(error.code).toBe('ERR_PROJECT');
    expect(error.message).toBe(`reading preset ${path}: cannot read ${path} (ENOENT)`);
  });

  it('reads a preset file', async () => {
    const path = join(await freshDir(), 'preset.ini');
    await writeFile(path, '[a]\nk = v\n');
    expect(await readPreset({ kind: 'file', path })).toBe('[a]\nk = v\n');
  });
});

describe('presetLocation', () => {
  const fileOrigin: Origin = { kind: 'file', path: '/srv/models/qwen/Svcfile' };
  const urlOrigin: Origin = { kind: 'url', url: 'http://h/team/Svcfile' };

  it('resolves a relative ref against the Svcfile directory, not the process cwd', () => {
    expect(presetLocation('preset.ini', fileOrigin)).toEqual({
      kind: 'file',
      path: '/srv/models/qwen/preset.ini',
    });
    expect(presetLocation('./presets/p.ini', fileOrigin)).toEqual({
      kind: 'file',
      path: '/srv/models/qwen/presets/p.ini',
    });
    expect(presetLocation('../shared/p.ini', fileOrigin)).toEqual({
      kind: 'file',
      path: '/srv/models/shared/p.ini',
    });
    expect(process.cwd()).not.toBe('/srv/models/qwen');
  });

  it('keeps an absolute path against a file origin', () => {
    expect(presetLocation('/etc/svc/p.ini', fileOrigin)).toEqual({
      kind: 'file',
      path: '/etc/svc/p.ini',
    });
  });

  it('resolves a relative ref against a URL origin', () => {
    expect(presetLocation('preset.ini', urlOrigin)).toEqual({
      kind: 'url',
      url: 'http://h/team/preset.ini',
    });
    expect(presetLocation('../p.ini', urlOrigin)).toEqual({ kind: 'url', url: 'http://h/p.ini' });
    expect(presetLocation('sub/p.ini', urlOrigin)).toEqual({
      kind: 'url',
      url: 'http://h/team/sub/p.ini',
    });
  });

  it('keeps an absolute path against a URL origin as a local file', () => {
    expect(presetLocation('/etc/svc/p.ini', urlOrigin)).toEqual({
      kind: 'file',
      path: '/etc/svc/p.ini',
    });
  });

  it('keeps an absolute URL against either origin', () => {
    const url = 'https://other.example/p.ini';
    expect(presetLocation(url, fileOrigin)).toEqual({ kind: 'url', url });
    expect(presetLocation(url, urlOrigin)).toEqual({ kind: 'url', url });
  });
});

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
