/**
 * Reading a project's origin and its preset, and where a preset reference points from a file
 * or a URL origin.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { serveLoopback } from '../../../test/support/http/http-server.ts';
import { freshDir, svcfile } from '../../../test/support/project-files/project-dirs.ts';
import { rejectionOf } from '../../../test/support/results/errors.ts';
import { type Origin, presetLocation, readOrigin, readPreset } from './load.ts';

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
    expect(presetLocation('../common/p.ini', fileOrigin)).toEqual({
      kind: 'file',
      path: '/srv/models/common/p.ini',
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
