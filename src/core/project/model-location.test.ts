import { describe, expect, it } from 'vitest';

import type { Origin } from './load.ts';
import { modelLocation } from './model-location.ts';

const FILE: Origin = { kind: 'file', path: '/work/project/sub/Svcfile' };
const URL_ORIGIN: Origin = { kind: 'url', url: 'https://example.test/team/Svcfile' };

describe('modelLocation (spec §1.4, like PRESET)', () => {
  it.each([
    ['llamacpp', './local.gguf', '/work/project/sub/local.gguf'],
    ['llamacpp', '../models/m.gguf', '/work/project/models/m.gguf'],
    ['llamacpp', 'models/m.gguf', '/work/project/sub/models/m.gguf'],
    ['llamacpp', 'local.gguf', '/work/project/sub/local.gguf'],
    ['llamacpp', '/abs/m.gguf', '/abs/m.gguf'],
    ['llamacpp', '~/m.gguf', '~/m.gguf'],
    ['llamacpp', 'org/model-GGUF:Q4_K_M', 'org/model-GGUF:Q4_K_M'],
    ['vllm', './weights', '/work/project/sub/weights'],
    ['vllm', 'org/model', 'org/model'],
    ['mtplx', '../m', '/work/project/m'],
    ['omlx', './ignored', './ignored'],
  ])('%s MODEL %s → %s', (provider, model, expected) => {
    expect(modelLocation(model, provider, FILE)).toBe(expected);
  });

  it('leaves a fetched Svcfile’s MODEL as written', () => {
    expect(modelLocation('./local.gguf', 'llamacpp', URL_ORIGIN)).toBe('./local.gguf');
  });
});
