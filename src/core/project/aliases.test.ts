import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeEach, describe, expect, it } from 'vitest';

import { tempDir } from '../../../test/support/processes/temp-dir.ts';
import { rejectionOf } from '../../../test/support/results/errors.ts';
import {
  isAliasName,
  readAliases,
  readHarness,
  registerAlias,
  registryPath,
  removeAlias,
} from './aliases.ts';

/** A config dir that does not exist yet, so the first write has to create it. */
let configDir: string;
beforeEach(async () => {
  configDir = join(await tempDir('svc-aliases-'), 'config', 'svc');
});

async function registry(): Promise<unknown> {
  return JSON.parse(await readFile(join(configDir, 'config.json'), 'utf8'));
}

async function seed(contents: unknown): Promise<void> {
  await mkdir(configDir, { recursive: true });
  await writeFile(join(configDir, 'config.json'), JSON.stringify(contents));
}

describe('registryPath', () => {
  it('is config.json in the config dir', () => {
    expect(registryPath('/home/u/.config/svc')).toBe('/home/u/.config/svc/config.json');
  });
});

describe('isAliasName', () => {
  it.each<[string, boolean]>([
    ['qwen', true],
    ['qwen-2.5', true],
    ['a.b', true],
    ['...', true],
    ['x-', true],
    ['UPPER_case9', true],
    ['', false],
    ['.', false],
    ['..', false],
    ['-x', false],
    ['--force', false],
    ['a/b', false],
    ['a\\b', false],
    ['/abs', false],
    ['a b', false],
    ['a\tb', false],
    ['trailing\n', false],
  ])('%j → %s', (name, expected) => {
    expect(isAliasName(name)).toBe(expected);
  });
});

describe('readAliases', () => {
  it('reads a missing registry as no aliases', async () => {
    expect(await readAliases(configDir)).toEqual({});
  });

  it('reads a registry without an "aliases" key as no aliases', async () => {
    await seed({ other: 1 });
    expect(await readAliases(configDir)).toEqual({});
  });

  it('returns only the string entries', async () => {
    await seed({ aliases: { a: '/p/Svcfile', b: 7, c: { nested: true }, d: 'http://h/Svcfile' } });
    expect(await readAliases(configDir)).toEqual({ a: '/p/Svcfile', d: 'http://h/Svcfile' });
  });

  it('refuses invalid JSON, naming the file', async () => {
    await mkdir(configDir, { recursive: true });
    await writeFile(join(configDir, 'config.json'), '{ "aliases": ');
    const error = await rejectionOf(readAliases(configDir));
    expect(error.code).toBe('ERR_ALIAS');
    expect(error.message).toContain(join(configDir, 'config.json'));
    expect(error.message).toContain('not valid JSON');
  });

  it.each([[[1, 2]], ['text'], [null], [3]])(
    'refuses a registry that is not a JSON object (%j)',
    async (contents) => {
      await seed(contents);
      const error = await rejectionOf(readAliases(configDir));
      expect(error.code).toBe('ERR_ALIAS');
      expect(error.message).toBe(`${join(configDir, 'config.json')} must hold a JSON object`);
    },
  );

  it.each([[['a']], ['qwen'], [5]])(
    'refuses "aliases" that is not an object (%j)',
    async (value) => {
      await seed({ aliases: value });
      const error = await rejectionOf(readAliases(configDir));
      expect(error.code).toBe('ERR_ALIAS');
      expect(error.message).toContain('"aliases" must be an object');
      expect(error.message).toContain(join(configDir, 'config.json'));
    },
  );

  it('refuses a registry path it cannot read, naming it', async () => {
    await mkdir(join(configDir, 'config.json'), { recursive: true });
    const error = await rejectionOf(readAliases(configDir));
    expect(error.code).toBe('ERR_ALIAS');
    expect(error.message).toContain(join(configDir, 'config.json'));
    expect(error.message).toContain('EISDIR');
  });
});

describe('registerAlias', () => {
  it('adds an alias to <configDir>/config.json and reports "added"', async () => {
    expect(await registerAlias(configDir, 'qwen', '/models/qwen/Svcfile', false)).toBe('added');
    expect(await registry()).toEqual({ aliases: { qwen: '/models/qwen/Svcfile' } });
    expect(await readAliases(configDir)).toEqual({ qwen: '/models/qwen/Svcfile' });
  });

  it('creates the config dir 0700 and the registry 0600, leaving no temp file', async () => {
    await registerAlias(configDir, 'qwen', '/models/qwen/Svcfile', false);
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(configDir, 'config.json'))).mode & 0o777).toBe(0o600);
    expect(await readdir(configDir)).toEqual(['config.json']);
  });

  it('keeps the registry at 0600 after a rewrite of an existing 0644 file', async () => {
    await seed({ aliases: {} });
    await writeFile(join(configDir, 'config.json'), '{}', { mode: 0o644 });
    await registerAlias(configDir, 'qwen', '/q/Svcfile', false);
    expect((await stat(join(configDir, 'config.json'))).mode & 0o777).toBe(0o600);
  });

  it('reports "unchanged" for the same target, with or without force', async () => {
    await registerAlias(configDir, 'qwen', '/q/Svcfile', false);
    expect(await registerAlias(configDir, 'qwen', '/q/Svcfile', false)).toBe('unchanged');
    expect(await registerAlias(configDir, 'qwen', '/q/Svcfile', true)).toBe('unchanged');
    expect(await readAliases(configDir)).toEqual({ qwen: '/q/Svcfile' });
  });

  it('refuses to re-point without force, naming the alias and --force', async () => {
    await registerAlias(configDir, 'qwen', '/q/Svcfile', false);
    const error = await rejectionOf(registerAlias(configDir, 'qwen', '/other/Svcfile', false));
    expect(error.code).toBe('ERR_ALIAS');
    expect(error.kind).toBe('user');
    expect(error.message).toContain('"qwen"');
    expect(error.message).toContain('--force');
    expect(error.message).toContain('/q/Svcfile');
    expect(error.message).toContain('/other/Svcfile');
    expect(await readAliases(configDir)).toEqual({ qwen: '/q/Svcfile' });
  });

  it('re-points with force and reports "re-pointed"', async () => {
    await registerAlias(configDir, 'qwen', '/q/Svcfile', false);
    expect(await registerAlias(configDir, 'qwen', 'http://h/Svcfile', true)).toBe('re-pointed');
    expect(await readAliases(configDir)).toEqual({ qwen: 'http://h/Svcfile' });
  });

  it('refuses to re-point a non-string entry without force', async () => {
    await seed({ aliases: { odd: 42 } });
    const error = await rejectionOf(registerAlias(configDir, 'odd', '/q/Svcfile', false));
    expect(error.code).toBe('ERR_ALIAS');
    expect(error.message).toContain('"odd"');
    expect(error.message).toContain('--force');
  });

  it('keeps unknown top-level keys and non-string alias entries across a rewrite', async () => {
    await seed({
      version: 3,
      theme: { color: 'blue' },
      aliases: { odd: 42, nested: { future: true }, old: '/old/Svcfile' },
    });
    expect(await registerAlias(configDir, 'new', '/new/Svcfile', false)).toBe('added');
    expect(await registry()).toEqual({
      version: 3,
      theme: { color: 'blue' },
      aliases: { odd: 42, nested: { future: true }, old: '/old/Svcfile', new: '/new/Svcfile' },
    });
  });

  it('writes the aliases sorted by name', async () => {
    await registerAlias(configDir, 'zeta', '/z', false);
    await registerAlias(configDir, 'alpha', '/a', false);
    await registerAlias(configDir, 'mid', '/m', false);
    const written = (await registry()) as { aliases: Record<string, string> };
    expect(Object.keys(written.aliases)).toEqual(['alpha', 'mid', 'zeta']);
  });

  it.each(['a/b', '-x', 'a b', '.', '..', '', 'a\\b'])(
    'refuses the invalid name %j and writes nothing',
    async (name) => {
      const error = await rejectionOf(registerAlias(configDir, name, '/q/Svcfile', true));
      expect(error.code).toBe('ERR_ALIAS');
      expect(error.message).toContain(`"${name}" cannot be an alias`);
      await expect(stat(configDir)).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );

  it('refuses to rewrite a registry holding invalid JSON', async () => {
    await mkdir(configDir, { recursive: true });
    await writeFile(join(configDir, 'config.json'), 'not json');
    const error = await rejectionOf(registerAlias(configDir, 'qwen', '/q/Svcfile', false));
    expect(error.code).toBe('ERR_ALIAS');
    expect(error.message).toContain(join(configDir, 'config.json'));
    expect(await readFile(join(configDir, 'config.json'), 'utf8')).toBe('not json');
  });
});

describe('removeAlias', () => {
  it('removes the alias and returns its old target', async () => {
    await registerAlias(configDir, 'qwen', '/q/Svcfile', false);
    await registerAlias(configDir, 'other', '/o/Svcfile', false);
    expect(await removeAlias(configDir, 'qwen')).toBe('/q/Svcfile');
    expect(await readAliases(configDir)).toEqual({ other: '/o/Svcfile' });
  });

  it('keeps unknown keys and non-string entries when removing', async () => {
    await seed({ version: 3, aliases: { odd: 42, qwen: '/q/Svcfile' } });
    await removeAlias(configDir, 'qwen');
    expect(await registry()).toEqual({ version: 3, aliases: { odd: 42 } });
  });

  it('removes a non-string entry, returning it as JSON', async () => {
    await seed({ aliases: { odd: { x: 1 } } });
    expect(await removeAlias(configDir, 'odd')).toBe('{"x":1}');
    expect(await registry()).toEqual({ aliases: {} });
  });

  it('refuses an unknown name with ERR_ALIAS naming it', async () => {
    await registerAlias(configDir, 'qwen', '/q/Svcfile', false);
    const error = await rejectionOf(removeAlias(configDir, 'nope'));
    expect(error.code).toBe('ERR_ALIAS');
    expect(error.message).toContain('"nope"');
    expect(await readAliases(configDir)).toEqual({ qwen: '/q/Svcfile' });
  });

  it('refuses an unknown name when there is no registry at all, creating nothing', async () => {
    const error = await rejectionOf(removeAlias(configDir, 'nope'));
    expect(error.code).toBe('ERR_ALIAS');
    await expect(stat(configDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('names that are also Object.prototype properties', () => {
  it.each(['toString', 'constructor', 'valueOf', 'hasOwnProperty'])(
    'treats %s as an ordinary, unregistered name',
    async (name) => {
      const dir = await tempDir('svc-proto-');
      await expect(removeAlias(dir, name)).rejects.toMatchObject({ code: 'ERR_ALIAS' });
      expect(await registerAlias(dir, name, '/x/Svcfile', false)).toBe('added');
      expect(await readAliases(dir)).toEqual({ [name]: '/x/Svcfile' });
    },
  );

  it('refuses __proto__ as an alias name', () => {
    expect(isAliasName('__proto__')).toBe(false);
  });
});

describe('readHarness', () => {
  it('is absent with no config.json and with no harness key', async () => {
    expect(await readHarness(configDir)).toBeUndefined();
    await seed({ aliases: {} });
    expect(await readHarness(configDir)).toBeUndefined();
  });

  it('reads the harness setting beside the aliases', async () => {
    await seed({ harness: 'pi', aliases: { q: '/x/Svcfile' } });
    expect(await readHarness(configDir)).toBe('pi');
  });

  it('refuses a harness that is not a name, naming the key', async () => {
    await seed({ harness: 3 });
    const error = await rejectionOf(readHarness(configDir));
    expect(error.message).toContain('"harness" must name an agent');
  });
});
