/**
 * One Svcfile, one engine command (spec §1.3 rule 2): a daemon node started by the fleet from a
 * Svcfile runs what `svc serve` runs from it, for every engine a node can run. The golden tests
 * (svcfile-command.test.ts) check the same for each of their Svcfiles; these pin the cases where
 * a preset states the context and the slots and the Svcfile restates one, both or neither.
 */
import { describe, expect, it } from 'vitest';

import {
  expectSameOnNode,
  invocationOf,
  nodeArgv,
  serveArgv,
} from '../../../test/support/project-files/engine-parity.ts';
import type { EngineSpec } from '../engines/engine-spec.ts';
import { deployConfigFromSpec } from './deploy-config-from-project.ts';
import { unwrap } from './diagnostics.ts';
import { parseSvcfile } from './parse.ts';
import { parsePreset } from './preset.ts';
import { resolveProject } from './resolve.ts';

function resolved(svcfile: string, preset?: string): EngineSpec {
  return unwrap(
    resolveProject({
      project: unwrap(parseSvcfile(svcfile, 'Svcfile')),
      supervised: true,
      ...(preset === undefined
        ? {}
        : { preset: { preset: unwrap(parsePreset(preset, 'p.ini')), source: 'p.ini' } }),
    }),
  ).spec;
}

const lines = (...parts: string[]): string => `${parts.join('\n')}\n`;

/** Each engine a node runs, with its preset's context and slot keys. */
const ENGINES = [
  ['llamacpp', [], ['hf = org/q', 'ctx-size = 32768', 'np = 3']],
  ['vllm', ['MODEL org/q'], ['max-model-len = 32768', 'max-num-seqs = 3']],
  ['mtplx', ['MODEL org/q'], ['context-window = 32768', 'max-active-requests = 3']],
] as const;

describe('a preset that states the context and the slots (spec §1.3 rules 2 and 3)', () => {
  it('the issue case: ALIAS qwen, PARALLEL 2, a preset ctx-size of 32768 runs unscaled on a node', () => {
    const spec = resolved(
      lines('PROVIDER llamacpp', 'ALIAS qwen', 'PARALLEL 2', 'PRESET p.ini'),
      lines('[qwen]', 'hf = org/q', 'ctx-size = 32768', 'np = 3'),
    );
    expect(serveArgv(spec).join(' ')).toBe(
      'llama-server --hf-repo org/q --ctx-size 32768 --parallel 2 --alias qwen --metrics',
    );
    expect(nodeArgv(spec)).toEqual({
      argv: [
        'llama-server',
        '-hf',
        'org/q',
        '--alias',
        'qwen',
        '--parallel',
        '2',
        '--ctx-size',
        '32768',
        '--metrics',
      ],
    });
    expectSameOnNode(spec);
  });

  describe.each(ENGINES)('%s', (runner, model, preset) => {
    it.each([
      ['neither', []],
      ['PARALLEL only', ['PARALLEL 2']],
      ['CONTEXT only', ['CONTEXT 8192']],
      ['both', ['CONTEXT 8192', 'PARALLEL 2']],
    ])('the Svcfile restates %s: the node runs what serve runs', (_name, restated) => {
      expectSameOnNode(
        resolved(
          lines(`PROVIDER ${runner}`, 'ALIAS qwen', ...model, ...restated, 'PRESET p.ini'),
          lines('[*]', 'ctx-size = 4096', '[qwen]', ...preset, 'temp = 1'),
        ),
      );
    });
  });

  it("carries only the Svcfile's CONTEXT and PARALLEL as contextSize and parallel", () => {
    const deployed = unwrap(
      deployConfigFromSpec(
        resolved(
          lines('PROVIDER llamacpp', 'PARALLEL 2', 'PRESET p.ini'),
          lines('[a]', 'hf = org/q', 'ctx-size = 32768', 'np = 3'),
        ),
        'Svcfile',
      ),
    );
    expect(deployed).toEqual({
      runner: 'llamacpp',
      modelId: 'org/q',
      parallel: 2,
      serveArgs: ['--ctx-size', '32768'],
    });
  });
});

describe('omlx on a node', () => {
  it('is refused by the fleet, naming the provider: a deploy config cannot name omlx (spec §2.7)', () => {
    const spec = resolved(lines('PROVIDER omlx', 'PARALLEL 2'));
    expect(nodeArgv(spec)).toEqual({
      refused: [
        'Svcfile: PROVIDER omlx cannot run on a daemon node (use llamacpp, vllm, mtplx); run it with svc serve --api on its machine',
      ],
    });
  });
});

describe('the comparison itself', () => {
  it('reads flags in canonical spelling, order aside', () => {
    expect(
      invocationOf('llamacpp', ['llama-server', '-hf', 'o/m', '-c', '8', '--metrics', '--no-mmap']),
    ).toEqual(
      invocationOf('llamacpp', [
        'llama-server',
        '--no-mmap',
        '--ctx-size=8',
        '--hf-repo',
        'o/m',
        '--metrics',
      ]),
    );
  });

  it.each([
    ['a different value', ['llama-server', '--ctx-size', '16']],
    ['a flag given twice', ['llama-server', '--ctx-size', '8', '--ctx-size', '8']],
    ['a missing flag', ['llama-server']],
  ])('tells %s apart', (_name, other) => {
    expect(invocationOf('llamacpp', other)).not.toEqual(
      invocationOf('llamacpp', ['llama-server', '--ctx-size', '8']),
    );
  });

  it('keeps positionals in place: a vLLM model is not a flag value', () => {
    expect(invocationOf('vllm', ['vllm', 'serve', 'org/m', '--max-model-len', '8'])).toEqual({
      bin: 'vllm',
      positionals: ['serve', 'org/m'],
      flags: ['max-model-len 8'],
    });
  });
});
