/**
 * A Svcfile (+ preset) as the deploy config a daemon node runs (spec §2.7), through the real
 * parser and resolver: the model, and the node-owned fields from the Svcfile and its preset.
 */
import { describe, expect, it } from 'vitest';

import { config, deploy } from '../../../test/support/project-files/deploy-config-of.ts';

function refused(svcfile: string, preset?: string): string[] {
  const result = deploy(svcfile, preset);
  if (result.ok) {
    throw new Error(`expected a refusal, got ${JSON.stringify(result.value)}`);
  }
  return result.problems;
}

const lines = (...parts: string[]): string => `${parts.join('\n')}\n`;

describe('model', () => {
  it.each([
    ['a llamacpp hub repo splits off its quant', 'llamacpp', 'org/m:Q4_K_M', 'org/m', 'Q4_K_M'],
    ['a llamacpp hub repo without a quant', 'llamacpp', 'org/m', 'org/m', undefined],
    [
      'a llamacpp relative path stays whole',
      'llamacpp',
      './models/q:v2.gguf',
      './models/q:v2.gguf',
      undefined,
    ],
    [
      'a llamacpp absolute path stays whole',
      'llamacpp',
      '/srv/m/q.gguf',
      '/srv/m/q.gguf',
      undefined,
    ],
    [
      'a llamacpp .gguf file stays whole',
      'llamacpp',
      'models/a:b.gguf',
      'models/a:b.gguf',
      undefined,
    ],
    ['vllm never splits', 'vllm', 'org/m:rev', 'org/m:rev', undefined],
    ['mtplx never splits', 'mtplx', 'org/m:rev', 'org/m:rev', undefined],
  ])('%s', (_name, provider, model, modelId, quant) => {
    const deployed = config(lines(`PROVIDER ${provider}`, `MODEL ${model}`));
    expect(deployed.runner).toBe(provider);
    expect(deployed.modelId).toBe(modelId);
    expect(deployed.quant).toBe(quant);
    expect('quant' in deployed).toBe(quant !== undefined);
  });

  it('takes the model from the preset when the Svcfile names none', () => {
    expect(
      config(lines('PROVIDER llamacpp', 'PRESET p.ini'), lines('[a]', 'hf = org/q:Q8_0')),
    ).toEqual({
      runner: 'llamacpp',
      modelId: 'org/q',
      quant: 'Q8_0',
      serveArgs: [],
    });
  });

  it('takes a preset model path whole', () => {
    const deployed = config(
      lines('PROVIDER llamacpp', 'PRESET p.ini'),
      lines('[a]', 'model = /m/a.gguf'),
    );
    expect(deployed.modelId).toBe('/m/a.gguf');
    expect(deployed.quant).toBeUndefined();
  });

  it('lets MODEL win over the preset model', () => {
    const deployed = config(
      lines('PROVIDER llamacpp', 'MODEL org/b:Q5_K_M', 'PRESET p.ini'),
      lines('[a]', 'hf = org/a:Q8_0'),
    );
    expect(deployed.modelId).toBe('org/b');
    expect(deployed.quant).toBe('Q5_K_M');
  });

  it('refuses a Svcfile with no model and no preset model: nothing to deploy', () => {
    const problems = refused(lines('PROVIDER llamacpp', 'PRESET p.ini'), lines('[a]', 'temp = 1'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('nodes/gpu/Svcfile');
    expect(problems[0]).toContain('nothing to deploy');
  });

  it('refuses omlx: it cannot run on a daemon node', () => {
    const problems = refused(lines('PROVIDER omlx', 'MODEL mlx-community/q'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('nodes/gpu/Svcfile');
    expect(problems[0]).toContain('omlx');
    expect(problems[0]).toContain('daemon');
  });
});

describe('the node-owned fields', () => {
  it('maps ALIAS, CONTEXT (unscaled) and PARALLEL', () => {
    expect(
      config(
        lines('PROVIDER llamacpp', 'MODEL org/m:Q4_K_M', 'ALIAS chat', 'CONTEXT 16k', 'PARALLEL 2'),
      ),
    ).toEqual({
      runner: 'llamacpp',
      modelId: 'org/m',
      quant: 'Q4_K_M',
      contextSize: 16_000,
      parallel: 2,
      servedModelName: 'chat',
      serveArgs: [],
    });
  });

  it.each([
    ['vllm', 'MODEL org/m'],
    ['mtplx', 'MODEL org/m'],
  ])('%s: the same fields, CONTEXT never multiplied by PARALLEL', (provider, model) => {
    const deployed = config(
      lines(`PROVIDER ${provider}`, model, 'ALIAS f', 'CONTEXT 32768', 'PARALLEL 4'),
    );
    expect(deployed).toEqual({
      runner: provider,
      modelId: 'org/m',
      contextSize: 32_768,
      parallel: 4,
      servedModelName: 'f',
      serveArgs: [],
    });
  });

  it('leaves out what the Svcfile and preset do not set', () => {
    const deployed = config(lines('PROVIDER llamacpp', 'MODEL org/m'));
    expect(deployed).toEqual({ runner: 'llamacpp', modelId: 'org/m', serveArgs: [] });
  });

  it.each([
    ['llamacpp', 'PROVIDER llamacpp', ['hf = org/q', 'ctx-size = 32768', 'np = 3']],
    [
      'llamacpp short and long spellings',
      'PROVIDER llamacpp',
      ['hf = org/q', 'c = 32768', 'parallel = 3'],
    ],
    ['vllm', 'PROVIDER vllm\nMODEL org/q', ['max-model-len = 32768', 'max-num-seqs = 3']],
    ['mtplx', 'PROVIDER mtplx\nMODEL org/q', ['context-window = 32768', 'max-active-requests = 3']],
  ])(
    "%s: keeps the preset's own context and slots as serveArgs, never as fields the daemon scales (spec §1.3 rule 2)",
    (_name, head, entries) => {
      const deployed = config(lines(head, 'PRESET p.ini'), lines('[a]', ...entries));
      expect(deployed.contextSize).toBeUndefined();
      expect(deployed.parallel).toBeUndefined();
      expect(deployed.serveArgs).toHaveLength(4);
      expect(deployed.serveArgs).toContain('32768');
      expect(deployed.serveArgs).toContain('3');
    },
  );

  it('lets CONTEXT and PARALLEL win over the preset', () => {
    const deployed = config(
      lines('PROVIDER llamacpp', 'CONTEXT 8192', 'PARALLEL 2', 'PRESET p.ini'),
      lines('[a]', 'hf = org/q', 'ctx-size = 32768', 'np = 3'),
    );
    expect(deployed.contextSize).toBe(8192);
    expect(deployed.parallel).toBe(2);
  });

  it('takes the section value over the [*] default', () => {
    const deployed = config(
      lines('PROVIDER llamacpp', 'PRESET p.ini'),
      lines('[*]', 'ctx-size = 4096', 'np = 1', '[a]', 'hf = org/q', 'ctx-size = 32768', 'np = 3'),
    );
    expect(deployed.serveArgs).toEqual(['--ctx-size', '32768', '--parallel', '3']);
  });
});
