/**
 * The property the import rests on: whatever mix of llama-server flags a llama-swap `cmd` has,
 * the engine command svc builds from the written Svcfile and preset carries each of them, with
 * its value (in llama.cpp's long spelling), once: CONTEXT × PARALLEL gives back the cmd's shared
 * `--ctx-size`, MODEL gives back its `-m` or `-hf`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  engineCommandOf,
  planWith,
  yamlLines,
} from '../../test/support/project-files/import-plan.ts';
import { splitCommand } from '../core/engines/split-command.ts';

interface PoolFlag {
  /** The setting's slot: one flag per slot in a cmd. */
  readonly slot: string;
  readonly written: (value: number) => string[];
  readonly built: (value: number) => string[];
}

const same = (flag: string): PoolFlag => ({
  slot: flag,
  written: (value) => [flag, String(value)],
  built: (value) => [flag, String(value)],
});
const renamed = (written: string, built: string): PoolFlag => ({
  slot: built,
  written: (value) => [written, String(value)],
  built: (value) => [built, String(value)],
});
const bare = (flag: string): PoolFlag => ({
  slot: flag,
  written: () => [flag],
  built: () => [flag],
});

const POOL: readonly PoolFlag[] = [
  renamed('-ngl', '--n-gpu-layers'),
  renamed('-t', '--threads'),
  renamed('-b', '--batch-size'),
  renamed('-ub', '--ubatch-size'),
  renamed('-c', '--ctx-size'),
  renamed('-np', '--parallel'),
  same('--top-k'),
  same('--port'),
  same('--seed'),
  {
    slot: 'temp',
    written: (value) => ['--temp', `0.${value}`],
    built: (value) => ['--temp', `0.${value}`],
  },
  {
    slot: 'flash-attn',
    written: (value) => ['-fa', value % 2 === 0 ? 'on' : 'off'],
    built: (value) => ['--flash-attn', value % 2 === 0 ? 'on' : 'off'],
  },
  {
    slot: 'host',
    written: () => ['--host', '127.0.0.1'],
    built: () => ['--host', '127.0.0.1'],
  },
  bare('--jinja'),
  bare('--mlock'),
  bare('--no-mmap'),
  bare('--cont-batching'),
];

/** Whether `words` holds `pair` as neighbours, exactly once. */
function holdsOnce(words: readonly string[], pair: readonly string[]): boolean {
  const at = words.flatMap((word, index) =>
    pair.every((part, offset) => words[index + offset] === part) ? [index] : [],
  );
  return at.length === 1;
}

describe('a llama-server cmd through the import', () => {
  it('gives an engine command with each of its flags and values, once', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray([...POOL], { minLength: 1 }),
        fc.array(fc.integer({ min: 1, max: 64 }), {
          minLength: POOL.length,
          maxLength: POOL.length,
        }),
        (flags, values) => {
          // llama-server needs a model; the rest is any mix, in any order.
          const cmd = [
            'llama-server',
            '-m',
            '/models/m.gguf',
            ...flags.flatMap((flag, index) => flag.written(values[index] ?? 1)),
          ];
          const result = planWith(yamlLines('models:', '  m:', `    cmd: ${cmd.join(' ')}`), {});
          const built = splitCommand(engineCommandOf(result, 'm'));
          expect(Array.isArray(built)).toBe(true);
          const words = built as string[];
          for (const [index, flag] of flags.entries()) {
            const pair = flag.built(values[index] ?? 1);
            expect(holdsOnce(words, pair), `${pair.join(' ')} in ${words.join(' ')}`).toBe(true);
          }
          expect(holdsOnce(words, ['--alias', 'm'])).toBe(true);
          expect(holdsOnce(words, ['-m', '/models/m.gguf']), words.join(' ')).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
