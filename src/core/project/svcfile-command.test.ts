/**
 * Golden tests: Svcfile (+ preset) text → the exact engine command, through the real parser,
 * resolver and command builder. One row per rule of spec §1.2–§1.4 for each engine. Every
 * Svcfile here is also run the fleet's way (its deploy config, then the daemon's argv builder),
 * which must give the same engine command (spec §1.3 rule 2; test/support/engine-parity.ts).
 */
import { describe, expect, it } from 'vitest';

import { expectSameOnNode } from '../../../test/support/engine-parity.ts';
import { thrownBy } from '../../../test/support/errors.ts';
import { buildCommand } from '../engines/build-command.ts';
import { formatCommand } from '../engines/shell-quote.ts';
import type { SvcError } from '../errors.ts';
import { unwrap } from './diagnostics.ts';
import { parseSvcfile } from './parse.ts';
import { parsePreset } from './preset.ts';
import { resolveProject } from './resolve.ts';

function command(svcfile: string, preset?: string, supervised = false): string {
  const project = unwrap(parseSvcfile(svcfile, 'Svcfile'));
  const resolved = unwrap(
    resolveProject({
      project,
      supervised,
      ...(preset === undefined
        ? {}
        : { preset: { preset: unwrap(parsePreset(preset, 'preset.ini')), source: 'preset.ini' } }),
    }),
  );
  expectSameOnNode(resolved.spec);
  const built = buildCommand(resolved.spec);
  return formatCommand([built.bin, ...built.args]);
}

function failure(svcfile: string, preset?: string): SvcError {
  return thrownBy(() => command(svcfile, preset));
}

const lines = (...parts: string[]): string => `${parts.join('\n')}\n`;

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

describe('llamacpp with a preset (spec §1.4)', () => {
  const preset = lines(
    '[*]',
    'ctx-size = 0',
    'mmap = 1',
    '[qwen]',
    'hf = unsloth/Qwen:Q4_K_M',
    'ctx-size = 32768',
    'temp = 1.0',
  );

  it('flattens [*] and the section, the section winning in place', () => {
    expect(command(lines('PROVIDER llamacpp', 'ALIAS qwen', 'PRESET preset.ini'), preset)).toBe(
      'llama-server --ctx-size 32768 --mmap --hf-repo unsloth/Qwen:Q4_K_M --temp 1.0 --alias qwen',
    );
  });

  it('lets CONTEXT and BASEURL win over ctx-size, host and port', () => {
    expect(
      command(
        lines(
          'PROVIDER llamacpp',
          'ALIAS qwen',
          'CONTEXT 8192',
          'BASEURL http://0.0.0.0:9999/v1',
          'PRESET p.ini',
        ),
        preset + lines('host = 127.0.0.1', 'port = 8080'),
      ),
    ).toBe(
      'llama-server --ctx-size 8192 --mmap --hf-repo unsloth/Qwen:Q4_K_M --temp 1.0 --host 0.0.0.0 --port 9999 --alias qwen',
    );
  });

  it('lets ALIAS win over the preset alias', () => {
    expect(
      command(
        lines('PROVIDER llamacpp', 'ALIAS qwen', 'PRESET p.ini'),
        lines('[qwen]', 'hf = o/q', 'a = other'),
      ),
    ).toBe('llama-server --hf-repo o/q --alias qwen');
  });

  it.each([
    ['hf = org/a', 'MODEL ./x.gguf', 'llama-server -m ./x.gguf --temp 1'],
    ['model = /m/a.gguf', 'MODEL org/b', 'llama-server -hf org/b --temp 1'],
    ['hf = org/a', 'MODEL org/b:Q8_0', 'llama-server -hf org/b:Q8_0 --temp 1'],
  ])(
    'GUIDE D2: MODEL replaces the preset %s, never emitting a model flag twice',
    (entry, model, expected) => {
      expect(
        command(
          lines('PROVIDER llamacpp', model, 'PRESET p.ini'),
          lines('[only]', entry, 'temp = 1'),
        ),
      ).toBe(expected);
    },
  );

  it('replaces both hf and model entries when a preset names both', () => {
    expect(
      command(
        lines('PROVIDER llamacpp', 'MODEL org/c', 'PRESET p.ini'),
        lines('[*]', 'model = /a.gguf', '[s]', 'hf = org/b'),
      ),
    ).toBe('llama-server -hf org/c');
  });

  it('maps short keys and drops falsy switches', () => {
    expect(
      command(
        lines('PROVIDER llamacpp', 'PRESET p.ini'),
        lines(
          '[m]',
          'hf = o/m',
          'c = 4096',
          'ngl = 99',
          'fa = on',
          'jinja = 0',
          'no-mmap = 1',
          'np = 3',
        ),
      ),
    ).toBe(
      'llama-server --hf-repo o/m --ctx-size 4096 --n-gpu-layers 99 --flash-attn on --no-mmap --parallel 3',
    );
  });

  it('selects the section by ALIAS among several', () => {
    expect(
      command(
        lines('PROVIDER llamacpp', 'ALIAS b', 'PRESET p.ini'),
        lines('[a]', 'hf = o/a', '[b]', 'hf = o/b'),
      ),
    ).toBe('llama-server --hf-repo o/b --alias b');
  });

  it('uses the only section when there is no ALIAS', () => {
    expect(command(lines('PROVIDER llamacpp', 'PRESET p.ini'), lines('[a]', 'hf = o/a'))).toBe(
      'llama-server --hf-repo o/a',
    );
  });

  it('refuses several sections and no ALIAS, listing them (spec §7)', () => {
    const error = failure(
      lines('PROVIDER llamacpp', 'PRESET p.ini'),
      lines('[a]', 'hf = o/a', '[b]', 'hf = o/b'),
    );
    expect(error.code).toBe('ERR_PRESET_SECTION_AMBIGUOUS');
    expect(error.message).toContain('(a, b)');
    expect(error.message).toContain('ALIAS');
  });

  it('keeps a value with spaces as one token and quotes it when printed', () => {
    expect(
      command(
        lines('PROVIDER llamacpp', 'PRESET p.ini'),
        lines('[a]', 'hf = o/a', 'system-prompt-file = my prompts/x.txt'),
      ),
    ).toBe("llama-server --hf-repo o/a --system-prompt-file 'my prompts/x.txt'");
  });
});

describe('vllm (spec §1.4)', () => {
  it('puts MODEL first as the positional and maps ALIAS, CONTEXT, PARALLEL, BASEURL', () => {
    expect(
      command(
        lines(
          'PROVIDER vllm',
          'MODEL Qwen/Qwen3-27B-FP8',
          'ALIAS friendly',
          'CONTEXT 32768',
          'PARALLEL 4',
          'BASEURL http://0.0.0.0:8000/v1',
        ),
      ),
    ).toBe(
      'vllm serve Qwen/Qwen3-27B-FP8 --served-model-name friendly --max-model-len 32768 --max-num-seqs 4 --host 0.0.0.0 --port 8000',
    );
  });

  it('keeps the positional straight after serve, exactly once, with a preset', () => {
    expect(
      command(
        lines('PROVIDER vllm', 'MODEL org/m', 'ALIAS friendly', 'PRESET p.ini'),
        lines(
          '[friendly]',
          'max-model-len = 4096',
          'gpu-memory-utilization = 0.9',
          'tensor-parallel-size = 2',
        ),
      ),
    ).toBe(
      'vllm serve org/m --max-model-len 4096 --gpu-memory-utilization 0.9 --tensor-parallel-size 2 --served-model-name friendly',
    );
  });

  it('never derives tensor or pipeline parallelism from PARALLEL', () => {
    expect(command(lines('PROVIDER vllm', 'MODEL org/m', 'PARALLEL 8'))).not.toMatch(
      /tensor|pipeline/,
    );
  });
});

describe('omlx (spec §1.4)', () => {
  it('runs a bare Svcfile with only PROVIDER', () => {
    expect(command(lines('PROVIDER omlx'))).toBe('omlx serve');
  });

  it('turns BASEURL into --host/--port and ignores MODEL, ALIAS and CONTEXT as launch flags', () => {
    expect(
      command(
        lines(
          'PROVIDER omlx',
          'MODEL mlx-community/q',
          'ALIAS q',
          'CONTEXT 32k',
          'BASEURL http://0.0.0.0:1234',
        ),
      ),
    ).toBe('omlx serve --host 0.0.0.0 --port 1234');
  });

  it('passes preset keys verbatim in its own vocabulary, ~ unexpanded', () => {
    expect(
      command(
        lines('PROVIDER omlx', 'PRESET p.ini'),
        lines('[x]', 'model-dir = ~/models', 'memory-guard = balanced', 'm = x'),
      ),
    ).toBe("omlx serve --model-dir '~/models' --memory-guard balanced -m x");
  });

  it('never passes --api-key', () => {
    expect(command(lines('PROVIDER omlx', 'PARALLEL 2'), undefined, true)).not.toContain('api-key');
  });
});

describe('mtplx (spec §1.4)', () => {
  it('maps MODEL verbatim, always --download, ALIAS, CONTEXT, PARALLEL, BASEURL', () => {
    expect(
      command(
        lines(
          'PROVIDER mtplx',
          'MODEL Youssofal/Qwen-MTPLX',
          'ALIAS qwen',
          'CONTEXT 128k',
          'PARALLEL 2',
          'BASEURL http://127.0.0.1:9100/v1',
        ),
      ),
    ).toBe(
      'mtplx serve --model Youssofal/Qwen-MTPLX --download --model-id qwen --context-window 128000 --max-active-requests 2 --host 127.0.0.1 --port 9100',
    );
  });

  it('emits no bind flag without BASEURL', () => {
    expect(command(lines('PROVIDER mtplx', 'MODEL o/m'))).toBe(
      'mtplx serve --model o/m --download',
    );
  });

  it('passes preset keys through unchecked, scheduler-mode included, and c stays -c', () => {
    expect(
      command(
        lines('PROVIDER mtplx', 'MODEL o/m', 'ALIAS qwen', 'PRESET p.ini'),
        lines(
          '[*]',
          'host = 127.0.0.1',
          'port = 8000',
          '[qwen]',
          'context-window = 32768',
          'scheduler-mode = parallel',
          'c = should-stay-literal',
        ),
      ),
    ).toBe(
      'mtplx serve --host 127.0.0.1 --port 8000 --context-window 32768 --scheduler-mode parallel -c should-stay-literal --model o/m --download --model-id qwen',
    );
  });
});

describe('supervised runs (spec §1.4, GUIDE D3)', () => {
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
    'refuses PROVIDER %s, naming the line and the four engines',
    (provider) => {
      const error = failure(lines('# header', `PROVIDER ${provider}`, 'MODEL o/m'));
      expect(error.code).toBe('ERR_PROVIDER_UNSUPPORTED');
      expect(error.message).toBe(
        `Svcfile:2: PROVIDER "${provider}" cannot be served: svc serve runs llamacpp, omlx, vllm, mtplx`,
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
