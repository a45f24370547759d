/**
 * keepCache in a deploy config (docs/design.md D32): the spec gets the host's slot directory and
 * the bound in bytes; another runner or a bad size is refused naming the field.
 */
import { describe, expect, it } from 'vitest';

import { buildCommand } from './build-command.ts';
import { specFromDeployConfig } from './from-deploy-config.ts';
import { parseSize, servedKeepCache } from './keep-cache.ts';

describe('parseSize', () => {
  it.each([
    ['8GiB', 8 * 1024 ** 3],
    ['500MB', 500e6],
    ['1.5 KiB', 1536],
    ['1048576', 1048576],
    [4096, 4096],
  ])('reads %s', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it.each(['lots', '8 GiB of it', '-1', '', 'GiB'])('refuses %j', (text) => {
    expect(parseSize(text)).toBeUndefined();
  });
});

describe('keepCache in a deploy config', () => {
  const config = { runner: 'llamacpp' as const, modelId: '/m/tiny.gguf', keepCache: true };

  it('runs the engine with the slot directory, bounded at 8GiB unless told', () => {
    const spec = specFromDeployConfig(config, { slotDir: '/cfg/daemon/slots' });
    expect(spec.keepCache).toEqual({ dir: '/cfg/daemon/slots', maxBytes: 8 * 1024 ** 3 });
    expect(buildCommand(spec).args).toEqual(
      expect.arrayContaining(['--slot-save-path', '/cfg/daemon/slots']),
    );
    expect(
      specFromDeployConfig({ ...config, keepCacheMax: '1GiB' }, { slotDir: '/s' }).keepCache,
    ).toEqual({ dir: '/s', maxBytes: 1024 ** 3 });
  });

  it('refuses another runner and a bad bound, naming the field', () => {
    expect(() =>
      specFromDeployConfig({ ...config, runner: 'vllm', modelId: 'org/m' }, { slotDir: '/s' }),
    ).toThrow(/keepCache: only llama\.cpp engines keep their prompt cache.*runs vllm/u);
    expect(() =>
      specFromDeployConfig({ ...config, keepCacheMax: 'lots' }, { slotDir: '/s' }),
    ).toThrow(/keepCacheMax: "lots" is not a size/u);
  });

  it('leaves the engine alone when keepCache is off', () => {
    const spec = specFromDeployConfig({ ...config, keepCache: false }, { slotDir: '/s' });
    expect(spec).not.toHaveProperty('keepCache');
    expect(buildCommand(spec).args).not.toContain('--slot-save-path');
  });
});

describe('svc serve --keep-cache', () => {
  it('adds the slot directory to a llama.cpp engine and refuses another, naming the flag', () => {
    const spec = servedKeepCache({ runner: 'llamacpp', model: '/m.gguf' }, '/cfg/serve/slots');
    expect(buildCommand(spec).args).toEqual(
      expect.arrayContaining(['--slot-save-path', '/cfg/serve/slots']),
    );
    expect(() => servedKeepCache({ runner: 'vllm', model: 'org/m' }, '/s')).toThrow(
      /--keep-cache: only llama\.cpp engines keep their prompt cache.*remove --keep-cache/u,
    );
  });
});
