/**
 * Golden tests: Svcfile text → the exact engine command, through the real parser, resolver and
 * command builder: llama.cpp without a preset, PARALLEL (spec §1.3), supervised runs, refusals.
 */
import { describe, expect, it } from 'vitest';

import { command, failure, lines } from '../../../test/support/project-files/golden-command.ts';

describe('llamacpp without a preset (spec §1.4)', () => {
  it.each([
    [
      'hub repo → -hf, ALIAS → --alias, CONTEXT → --ctx-size',
      lines('PROVIDER llamacpp', 'MODEL org/model', 'ALIAS friend', 'CONTEXT 16000'),
      'llama-server -hf org/model --alias friend --ctx-size 16000',
    ],
    [
      'a quant tag stays part of the repo',
      lines('PROVIDER llamacpp', 'MODEL unsloth/Qwen3-GGUF:Q4_K_M'),
      'llama-server -hf unsloth/Qwen3-GGUF:Q4_K_M',
    ],
    [
      'a .gguf file → -m',
      lines('PROVIDER llamacpp', 'MODEL models/qwen.gguf'),
      'llama-server -m models/qwen.gguf',
    ],
    [
      'an absolute path → -m',
      lines('PROVIDER llamacpp', 'MODEL /srv/m/q.GGUF'),
      'llama-server -m /srv/m/q.GGUF',
    ],
    ['a ./ path → -m', lines('PROVIDER llamacpp', 'MODEL ./weights'), 'llama-server -m ./weights'],
    ['a ~ path → -m', lines('PROVIDER llamacpp', 'MODEL ~/m.gguf'), "llama-server -m '~/m.gguf'"],
    [
      'BASEURL → --host/--port, path ignored',
      lines('PROVIDER llamacpp', 'MODEL org/m', 'BASEURL http://127.0.0.1:9090/v1'),
      'llama-server -hf org/m --host 127.0.0.1 --port 9090',
    ],
    [
      'BASEURL host:port without a scheme',
      lines('PROVIDER llamacpp', 'MODEL org/m', 'BASEURL localhost:9090'),
      'llama-server -hf org/m --host localhost --port 9090',
    ],
    [
      'BASEURL without a port → --host only',
      lines('PROVIDER llamacpp', 'MODEL org/m', 'BASEURL https://gw/v1'),
      'llama-server -hf org/m --host gw',
    ],
  ])('%s', (_name, svcfile, expected) => {
    expect(command(svcfile)).toBe(expected);
  });
});

describe('PARALLEL translation (spec §1.3)', () => {
  it.each([
    [
      'llamacpp: --parallel n and --ctx-size context × n',
      lines('PROVIDER llamacpp', 'MODEL org/m', 'CONTEXT 128k', 'PARALLEL 2'),
      'llama-server -hf org/m --ctx-size 256000 --parallel 2',
    ],
    [
      'vllm: --max-num-seqs n, --max-model-len unscaled',
      lines('PROVIDER vllm', 'MODEL org/m', 'CONTEXT 32768', 'PARALLEL 4'),
      'vllm serve org/m --max-model-len 32768 --max-num-seqs 4',
    ],
    [
      'omlx: --max-concurrent-requests n, no context flag',
      lines('PROVIDER omlx', 'CONTEXT 32768', 'PARALLEL 8'),
      'omlx serve --max-concurrent-requests 8',
    ],
    [
      'mtplx: --max-active-requests n, --context-window unscaled',
      lines('PROVIDER mtplx', 'MODEL org/m', 'CONTEXT 128k', 'PARALLEL 2'),
      'mtplx serve --model org/m --download --context-window 128000 --max-active-requests 2',
    ],
  ])('%s', (_name, svcfile, expected) => {
    expect(command(svcfile)).toBe(expected);
  });

  it.each(['llamacpp', 'vllm', 'omlx', 'mtplx'])(
    'rule 1: %s without PARALLEL adds no parallel flag and leaves CONTEXT unscaled',
    (provider) => {
      const text = command(lines(`PROVIDER ${provider}`, 'MODEL org/m', 'CONTEXT 8k'));
      expect(text).not.toMatch(
        /--parallel|--max-num-seqs|--max-concurrent-requests|--max-active-requests/,
      );
      if (provider !== 'omlx') {
        expect(text).toContain(' 8000');
      }
    },
  );

  it('llamacpp PARALLEL without CONTEXT adds no --ctx-size', () => {
    expect(command(lines('PROVIDER llamacpp', 'MODEL org/m', 'PARALLEL 4'))).toBe(
      'llama-server -hf org/m --parallel 4',
    );
  });

  it('rule 2: a preset-only ctx-size is never scaled', () => {
    expect(
      command(
        lines('PROVIDER llamacpp', 'ALIAS qwen', 'PARALLEL 2', 'PRESET preset.ini'),
        lines('[qwen]', 'hf = org/q', 'ctx-size = 32768'),
      ),
    ).toBe('llama-server --hf-repo org/q --ctx-size 32768 --alias qwen --parallel 2');
  });

  it.each([
    ['llamacpp', 'np = 4', 'llama-server --hf-repo org/q --parallel 2 --alias qwen'],
    ['llamacpp', 'parallel = 4', 'llama-server --hf-repo org/q --parallel 2 --alias qwen'],
    ['vllm', 'max-num-seqs = 16', 'vllm serve org/q --max-num-seqs 2 --served-model-name qwen'],
    ['omlx', 'max-concurrent-requests = 16', 'omlx serve --max-concurrent-requests 2'],
    [
      'mtplx',
      'max-active-requests = 16',
      'mtplx serve --max-active-requests 2 --model org/q --download --model-id qwen',
    ],
  ])('rule 3: %s PARALLEL overrides the preset %s in place', (provider, entry, expected) => {
    const model = provider === 'llamacpp' ? 'hf = org/q' : '';
    const svcModel = provider === 'llamacpp' || provider === 'omlx' ? [] : ['MODEL org/q'];
    expect(
      command(
        lines(`PROVIDER ${provider}`, 'ALIAS qwen', 'PARALLEL 2', 'PRESET p.ini', ...svcModel),
        lines('[qwen]', ...(model === '' ? [] : [model]), entry),
      ),
    ).toBe(expected);
  });
});

describe('supervised runs (spec §1.4, docs/design.md D3)', () => {
  it('switch llama.cpp metrics on at the end, once', () => {
    expect(command(lines('PROVIDER llamacpp', 'MODEL o/m'), undefined, true)).toBe(
      'llama-server -hf o/m --metrics',
    );
    expect(
      command(
        lines('PROVIDER llamacpp', 'PRESET p.ini'),
        lines('[a]', 'hf = o/a', 'metrics = 1'),
        true,
      ),
    ).toBe('llama-server --hf-repo o/a --metrics');
  });

  it.each(['vllm', 'mtplx'])('add nothing for %s, which has no switch', (provider) => {
    expect(command(lines(`PROVIDER ${provider}`, 'MODEL o/m'), undefined, true)).not.toContain(
      '--metrics',
    );
  });
});

describe('refusals', () => {
  it.each(['ollama', 'LLAMACPP', 'openai'])(
    'refuses PROVIDER %s, naming the line and every provider',
    (provider) => {
      const error = failure(lines('# header', `PROVIDER ${provider}`, 'MODEL o/m'));
      expect(error.code).toBe('ERR_PROVIDER_UNSUPPORTED');
      expect(error.message).toBe(
        `Svcfile:2: PROVIDER "${provider}" cannot be served: svc serve runs llamacpp, omlx, vllm, mtplx, command`,
      );
    },
  );

  it.each([
    ['llamacpp', '.gguf'],
    ['vllm', 'hub repo'],
    ['mtplx', 'hub repo'],
  ])('refuses %s without MODEL or PRESET, saying what to set', (provider, hint) => {
    const error = failure(lines(`PROVIDER ${provider}`));
    expect(error.code).toBe('ERR_PROJECT');
    expect(error.message).toContain('needs a MODEL');
    expect(error.message).toContain(hint);
  });
});
