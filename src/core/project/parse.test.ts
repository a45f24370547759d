/** The Svcfile parser (spec §1.1): instructions, keywords' spelling and layout, comments. */
import { describe, expect, it } from 'vitest';

import { parseHelpers } from '../../../test/support/results/parse-result.ts';
import { KEYWORDS, parseSvcfile } from './parse.ts';

const SOURCE = 'proj/Svcfile';
const EXPECTED_LIST =
  'PROVIDER, MODEL, ALIAS, CONTEXT, OUTPUT, PARALLEL, BASEURL, PRESET, ENV, COMMAND, HEALTH, STOP, ENGINE';

const { parsed, problems } = parseHelpers(parseSvcfile, 'the Svcfile', SOURCE);

/** One instruction after a valid PROVIDER line, so line numbers in messages are 2. */
function withProvider(line: string): string {
  return `PROVIDER llamacpp\n${line}`;
}

describe('parseSvcfile: instructions', () => {
  it('reads every instruction of a full Svcfile, with the line each was on', () => {
    const text = [
      '# a full Svcfile',
      'PROVIDER llamacpp',
      'MODEL unsloth/Qwen3-8B-GGUF:Q4_K_M',
      'ALIAS qwen3',
      '',
      'CONTEXT 32k',
      'OUTPUT logs/out.txt',
      'PARALLEL 4',
      'BASEURL http://127.0.0.1:9090/v1',
      'PRESET presets/qwen.ini',
      'ENV HF_TOKEN=abc',
      'ENV CUDA_VISIBLE_DEVICES=0,1',
    ].join('\n');
    expect(parsed(text)).toEqual({
      source: SOURCE,
      provider: { value: 'llamacpp', line: 2 },
      model: { value: 'unsloth/Qwen3-8B-GGUF:Q4_K_M', line: 3 },
      alias: { value: 'qwen3', line: 4 },
      context: { value: 32_000, line: 6 },
      output: { value: 'logs/out.txt', line: 7 },
      parallel: { value: 4, line: 8 },
      baseUrl: { value: { host: '127.0.0.1', port: 9090, path: '/v1' }, line: 9 },
      preset: { value: 'presets/qwen.ini', line: 10 },
      env: [
        { value: { key: 'HF_TOKEN', value: 'abc' }, line: 11 },
        { value: { key: 'CUDA_VISIBLE_DEVICES', value: '0,1' }, line: 12 },
      ],
    });
  });

  it('sets only what the file writes: a bare PROVIDER gives provider, source and no ENV', () => {
    expect(parsed('PROVIDER vllm')).toEqual({
      source: SOURCE,
      provider: { value: 'vllm', line: 1 },
      env: [],
    });
  });

  it('exports the nine keywords of the spec, then the four of D31', () => {
    expect(KEYWORDS).toEqual(EXPECTED_LIST.split(', '));
  });

  it.each(['provider', 'Provider', 'PROVIDER', 'pRoViDeR'])('reads the keyword %s', (written) => {
    expect(parsed(`${written} omlx`).provider).toEqual({ value: 'omlx', line: 1 });
  });

  it.each([
    ['model', 'model'],
    ['Model', 'model'],
    ['alias', 'alias'],
    ['Output', 'output'],
    ['preset', 'preset'],
  ] as const)('reads %s case-insensitively', (written, field) => {
    expect(parsed(withProvider(`${written} Some/Value`))[field]).toEqual({
      value: 'Some/Value',
      line: 2,
    });
  });

  it('keeps values verbatim, case included', () => {
    const project = parsed('PROVIDER LlamaCpp\nMODEL Org/Model-Q4_K_M.GGUF\nALIAS MyAlias');
    expect(project.provider.value).toBe('LlamaCpp');
    expect(project.model?.value).toBe('Org/Model-Q4_K_M.GGUF');
    expect(project.alias?.value).toBe('MyAlias');
  });

  it('accepts tabs and runs of whitespace as the separator, and indented lines', () => {
    const project = parsed('PROVIDER\tllamacpp\nMODEL\t \t m1\n   ALIAS a1   \n\tPRESET\tp.ini\t');
    expect(project.provider).toEqual({ value: 'llamacpp', line: 1 });
    expect(project.model).toEqual({ value: 'm1', line: 2 });
    expect(project.alias).toEqual({ value: 'a1', line: 3 });
    expect(project.preset).toEqual({ value: 'p.ini', line: 4 });
  });

  it('reads CRLF line endings without keeping the carriage return', () => {
    const project = parsed('PROVIDER llamacpp\r\nMODEL m\r\nPARALLEL 2\r\n');
    expect(project.model).toEqual({ value: 'm', line: 2 });
    expect(project.parallel).toEqual({ value: 2, line: 3 });
  });

  it('skips blank and whitespace-only lines but still counts them', () => {
    expect(parsed('\n   \n\t\nPROVIDER vllm\n\nMODEL m\n').model).toEqual({ value: 'm', line: 6 });
  });
});

describe('parseSvcfile: comments', () => {
  it.each([
    '# a comment',
    '#PROVIDER nothing',
    '   # indented comment',
    '\t# tab-indented comment',
    '# MODEL a b c (would be an error if read)',
  ])('ignores the whole-line comment %j', (comment) => {
    expect(parsed(`${comment}\nPROVIDER vllm\n${comment}`)).toEqual({
      source: SOURCE,
      provider: { value: 'vllm', line: 2 },
      env: [],
    });
  });

  it('does not read an instruction that is commented out', () => {
    expect(problems('# PROVIDER vllm')).toEqual([
      `${SOURCE}: missing PROVIDER instruction (one of llamacpp, omlx, vllm, mtplx, command)`,
    ]);
  });

  it.each([
    ['MODEL foo # the model', 'foo'],
    ['MODEL foo\t# the model', 'foo'],
    ['MODEL foo #', 'foo'],
    ['MODEL foo #two words', 'foo'],
    ['MODEL foo # extra words that are not values', 'foo'],
    ['MODEL foo#bar', 'foo#bar'],
    ['MODEL foo#bar # then a comment', 'foo#bar'],
    ['MODEL foo## #', 'foo##'],
  ])('reads %j as MODEL %s', (line, value) => {
    expect(parsed(withProvider(line)).model).toEqual({ value, line: 2 });
  });

  it('treats a value that only comments away as missing', () => {
    expect(problems(withProvider('MODEL # nothing here'))).toEqual([
      `${SOURCE}:2: MODEL needs a value`,
    ]);
  });

  it('keeps a # inside an ENV value', () => {
    expect(parsed(withProvider('ENV COLOR=#fff # white')).env).toEqual([
      { value: { key: 'COLOR', value: '#fff' }, line: 2 },
    ]);
  });
});
