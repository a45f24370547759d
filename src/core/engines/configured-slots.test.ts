/** docs/design.md D25's fallback: the slots an engine was started with, read from its argv. */
import { describe, expect, it } from 'vitest';

import { buildCommand } from './build-command.ts';
import { configuredSlots } from './configured-slots.ts';

describe('configuredSlots', () => {
  it.each([
    ['llamacpp', ['-m', 'm.gguf', '--parallel', '2'], 2],
    ['llamacpp', ['-m', 'm.gguf', '-np', '3'], 3],
    ['llamacpp', ['--parallel=5'], 5],
    ['vllm', ['serve', 'org/m', '--max-num-seqs', '8'], 8],
    ['mtplx', ['serve', '--max-active-requests', '4'], 4],
    ['omlx', ['serve', '--max-concurrent-requests', '6'], 6],
  ] as const)('%s %j → %d', (runner, args, slots) => {
    expect(configuredSlots(runner, args)).toBe(slots);
  });

  it('takes the last value in any spelling, as the engine does (serveArgs after the fields)', () => {
    expect(configuredSlots('llamacpp', ['--parallel', '2', '-np', '4'])).toBe(4);
    expect(configuredSlots('llamacpp', ['-np', '4', '--parallel=2'])).toBe(2);
  });

  it.each([
    ['nothing stated', []],
    ['auto (-1)', ['--parallel', '-1']],
    ['zero', ['--parallel', '0']],
    ['not a number', ['--parallel', 'many']],
    ['a flag with no value', ['--parallel']],
    ["another engine's spelling", ['--max-num-seqs', '8']],
  ])('is unknown for %s', (_case, args) => {
    expect(configuredSlots('llamacpp', args)).toBeUndefined();
  });

  it("reads a preset's np and a Svcfile's PARALLEL from the built command", () => {
    const preset = [[{ key: 'np', value: '3' }]];
    expect(
      configuredSlots('llamacpp', buildCommand({ runner: 'llamacpp', presetLayers: preset }).args),
    ).toBe(3);
    expect(
      configuredSlots(
        'llamacpp',
        buildCommand({ runner: 'llamacpp', presetLayers: preset, parallel: 2 }).args,
      ),
    ).toBe(2);
  });
});
