/**
 * Golden tests: Svcfile and preset → the exact llama.cpp command (spec §1.4): the section chosen,
 * flattened, and what the Svcfile wins over.
 */
import { describe, expect, it } from 'vitest';

import { command, failure, lines } from '../../../test/support/project-files/golden-command.ts';

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
    'docs/design.md D2: MODEL replaces the preset %s, never emitting a model flag twice',
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
