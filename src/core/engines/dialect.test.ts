import { describe, expect, it } from 'vitest';

import { canonicalKey, type Dialect, mergeLayers, presetParams, renderParams } from './dialect.ts';
import { ENGINES } from './engine-table.ts';

const llama = ENGINES.llamacpp.dialect;
const passThrough: Dialect = ENGINES.vllm.dialect;

describe('canonicalKey', () => {
  it.each([
    ['hf', 'hf-repo'],
    ['HFR', 'hf-repo'],
    ['c', 'ctx-size'],
    ['np', 'parallel'],
    ['ngl', 'n-gpu-layers'],
    ['md', 'model-draft'],
    ['ctx-size', 'ctx-size'],
    [' Temp ', 'temp'],
  ])('llama.cpp %s → %s', (key, canonical) => {
    expect(canonicalKey(llama, key)).toBe(canonical);
  });

  it('passes keys through for the other engines', () => {
    expect(canonicalKey(passThrough, 'c')).toBe('c');
    expect(canonicalKey(passThrough, 'M')).toBe('m');
  });
});

describe('renderParams', () => {
  const render = (dialect: Dialect, entries: [string, string][]): string[] =>
    renderParams(
      dialect,
      presetParams(
        dialect,
        entries.map(([key, value]) => ({ key, value })),
      ),
    );

  it('renders long keys as --key and one-letter keys as -k', () => {
    expect(
      render(passThrough, [
        ['gpu-memory-utilization', '0.9'],
        ['q', 'awq'],
      ]),
    ).toEqual(['--gpu-memory-utilization', '0.9', '-q', 'awq']);
  });

  it('expands llama.cpp short aliases to the long flag', () => {
    expect(
      render(llama, [
        ['hf', 'org/m:Q4'],
        ['c', '4096'],
        ['np', '2'],
        ['t', '8'],
      ]),
    ).toEqual(['--hf-repo', 'org/m:Q4', '--ctx-size', '4096', '--parallel', '2', '--threads', '8']);
  });

  it.each(['1', 'true', 'on', ''])('renders llama.cpp switch mmap=%j as a bare flag', (value) => {
    expect(render(llama, [['mmap', value]])).toEqual(['--mmap']);
  });

  it.each(['0', 'false', 'off', 'no', 'OFF'])('drops llama.cpp switch jinja=%s', (value) => {
    expect(render(llama, [['jinja', value]])).toEqual([]);
  });

  it('keeps a value with spaces as one token', () => {
    expect(render(llama, [['chat-template-kwargs', '{"a": 1, "b": 2}']])).toEqual([
      '--chat-template-kwargs',
      '{"a": 1, "b": 2}',
    ]);
  });

  it('renders an empty non-switch value as a bare flag', () => {
    expect(render(passThrough, [['enforce-eager', '']])).toEqual(['--enforce-eager']);
  });

  it('has no switches outside llama.cpp: 1 stays a value', () => {
    expect(render(passThrough, [['mmap', '1']])).toEqual(['--mmap', '1']);
  });
});

describe('mergeLayers', () => {
  const p = (key: string, value: string): { key: string; value: string } => ({ key, value });

  it('lets a later layer replace an earlier entry in its position', () => {
    expect(mergeLayers([[p('ctx-size', '0'), p('mmap', '1')], [p('ctx-size', '32768')]])).toEqual([
      p('ctx-size', '32768'),
      p('mmap', '1'),
    ]);
  });

  it('appends entries no earlier layer had', () => {
    expect(mergeLayers([[p('a', '1')], [p('b', '2')]])).toEqual([p('a', '1'), p('b', '2')]);
  });

  it('lets one param take over several slots, keeping the first position, never emitting twice', () => {
    const model = { key: 'model', value: './x.gguf', replaces: ['hf-repo', 'model'] };
    expect(
      mergeLayers([
        [p('temp', '1'), p('hf-repo', 'org/a'), p('top-k', '4'), p('model', './y.gguf')],
        [model],
      ]),
    ).toEqual([p('temp', '1'), model, p('top-k', '4')]);
  });

  it('collapses repeats inside one layer to the last value', () => {
    expect(mergeLayers([[p('a', '1'), p('b', '2'), p('a', '3')]])).toEqual([
      p('a', '3'),
      p('b', '2'),
    ]);
  });
});
