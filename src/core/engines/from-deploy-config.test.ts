import { describe, expect, it } from 'vitest';

import { thrownBy } from '../../../test/support/results/errors.ts';
import type { DeployConfig } from '../contract/deploy-config.ts';
import type { SvcError } from '../errors.ts';
import { buildCommand } from './build-command.ts';
import type { EngineSpec } from './engine-spec.ts';
import { specFromDeployConfig } from './from-deploy-config.ts';

function spec(config: DeployConfig, keyFile?: string): EngineSpec {
  return specFromDeployConfig(config, keyFile === undefined ? {} : { keyFile });
}

function argv(config: DeployConfig, keyFile?: string): string[] {
  const built = buildCommand(spec(config, keyFile));
  return [built.bin, ...built.args];
}

function refusal(config: DeployConfig, keyFile?: string): SvcError {
  return thrownBy(() => spec(config, keyFile));
}

describe('deploy config → command (spec §2.7)', () => {
  it('builds llamacpp from modelId, servedModelName and contextSize, metrics on', () => {
    expect(
      argv({
        runner: 'llamacpp',
        modelId: 'org/model',
        contextSize: 16000,
        servedModelName: 'friend',
      }),
    ).toEqual([
      'llama-server',
      '-hf',
      'org/model',
      '--alias',
      'friend',
      '--ctx-size',
      '16000',
      '--metrics',
    ]);
  });

  it('attaches quant to a llamacpp hub repo', () => {
    expect(
      argv({ runner: 'llamacpp', modelId: 'org/m-GGUF', quant: 'Q4_K_M' }).slice(1, 3),
    ).toEqual(['-hf', 'org/m-GGUF:Q4_K_M']);
  });

  it('refuses a quant for a local llamacpp model path', () => {
    expect(
      refusal({ runner: 'llamacpp', modelId: '/m/x.gguf', quant: 'Q4_K_M' }).message,
    ).toContain('quant');
  });

  it('passes quant to vLLM as --quantization and serveArgs verbatim after the fields', () => {
    expect(
      argv({
        runner: 'vllm',
        modelId: 'org/model',
        quant: 'awq',
        contextSize: 32768,
        servedModelName: 'friendly',
        serveArgs: ['--gpu-memory-utilization', '0.92', '--max-model-len', '1024'],
      }),
    ).toEqual([
      'vllm',
      'serve',
      'org/model',
      '--served-model-name',
      'friendly',
      '--max-model-len',
      '32768',
      '--quantization',
      'awq',
      '--gpu-memory-utilization',
      '0.92',
      '--max-model-len',
      '1024',
    ]);
  });

  it.each([
    [
      { runner: 'llamacpp', modelId: 'o/m', contextSize: 8000, parallel: 4 },
      ['--ctx-size', '32000', '--parallel', '4'],
    ],
    [
      { runner: 'vllm', modelId: 'o/m', contextSize: 8000, parallel: 4 },
      ['--max-model-len', '8000', '--max-num-seqs', '4'],
    ],
    [
      { runner: 'mtplx', modelId: 'o/m', contextSize: 8000, parallel: 4 },
      ['--context-window', '8000', '--max-active-requests', '4'],
    ],
  ] as [DeployConfig, string[]][])('translates parallel per runner (%o)', (config, expected) => {
    const args = argv(config).join(' ');
    expect(args).toContain(expected.join(' '));
  });

  it.each([0, undefined])('treats parallel %s as unset: no flag, context unscaled', (parallel) => {
    const config: DeployConfig = {
      runner: 'llamacpp',
      modelId: 'o/m',
      contextSize: 8000,
      ...(parallel === undefined ? {} : { parallel }),
    };
    expect(argv(config)).toEqual(['llama-server', '-hf', 'o/m', '--ctx-size', '8000', '--metrics']);
  });

  it('treats contextSize 0 as unset', () => {
    expect(argv({ runner: 'llamacpp', modelId: 'o/m', contextSize: 0 })).toEqual([
      'llama-server',
      '-hf',
      'o/m',
      '--metrics',
    ]);
  });

  it('builds mtplx with --download and the key file flag last', () => {
    expect(
      argv({ runner: 'mtplx', modelId: 'o/m', servedModelName: 'q' }, '/state/engine-api-key'),
    ).toEqual([
      'mtplx',
      'serve',
      '--model',
      'o/m',
      '--download',
      '--model-id',
      'q',
      '--api-key-file',
      '/state/engine-api-key',
    ]);
  });

  it('gates llama-server with --api-key-file after --metrics, never the key itself', () => {
    const args = argv({ runner: 'llamacpp', modelId: 'o/m' }, '/state/engine-api-key');
    expect(args.slice(-3)).toEqual(['--metrics', '--api-key-file', '/state/engine-api-key']);
    expect(args).not.toContain('--api-key');
  });

  it('refuses a key for vLLM, which has no key-file option (spec §5 rule 5, docs/design.md D9)', () => {
    const error = refusal({ runner: 'vllm', modelId: 'o/m' }, '/state/engine-api-key');
    expect(error.code).toBe('ERR_DEPLOY_CONFIG');
    expect(error.message).toContain('vllm cannot be gated with an API key');
  });

  it.each(['llamacpp', 'vllm', 'mtplx'] as const)(
    'refuses %s with no modelId, saying to set it',
    (runner) => {
      expect(refusal({ runner }).message).toContain('set modelId');
      expect(refusal({ runner, modelId: '' }).message).toContain('set modelId');
    },
  );
});

describe('companions (spec §2.7)', () => {
  it('resolves companions of a local model inside its directory', () => {
    expect(
      argv({
        runner: 'llamacpp',
        modelId: '/models/q/q.gguf',
        companions: { draft: 'd.gguf', mmproj: 'mm.gguf' },
      }),
    ).toEqual([
      'llama-server',
      '-m',
      '/models/q/q.gguf',
      '--model-draft',
      '/models/q/d.gguf',
      '--mmproj',
      '/models/q/mm.gguf',
      '--metrics',
    ]);
  });

  it('fetches the mmproj of a hub model from the same repo', () => {
    expect(
      argv({ runner: 'llamacpp', modelId: 'org/m', companions: { mmproj: 'mmproj-f16.gguf' } }),
    ).toContain('https://huggingface.co/org/m/resolve/main/mmproj-f16.gguf');
  });

  it.each(['../x.gguf', 'sub/x.gguf', '/abs/x.gguf', '..', '.', 'a\\b'])(
    'refuses companion %s: a bare file name only',
    (file) => {
      const error = refusal({
        runner: 'llamacpp',
        modelId: '/m/q.gguf',
        companions: { draft: file },
      });
      expect(error.code).toBe('ERR_DEPLOY_CONFIG');
      expect(error.message).toContain('companions.draft');
    },
  );

  it('refuses companions for runners that take none', () => {
    expect(
      refusal({ runner: 'vllm', modelId: 'o/m', companions: { draft: 'd' } }).message,
    ).toContain('vllm takes no companion weights');
  });

  it('refuses a hub draft, which llama-server cannot fetch by file name', () => {
    expect(
      refusal({ runner: 'llamacpp', modelId: 'o/m', companions: { draft: 'd.gguf' } }).message,
    ).toContain('draft');
  });
});
