/**
 * The preset parser (spec §1.4, llama.cpp's --models-preset .ini): sections, comments, entries
 * and problems, all reported at once.
 */
import { describe, expect, it } from 'vitest';

import { parseHelpers } from '../../../test/support/results/parse-result.ts';
import { parsePreset, type PresetEntry } from './preset.ts';

const SOURCE = 'presets/qwen.ini';

const { parsed, problems } = parseHelpers(parsePreset, 'the preset', SOURCE);

function entry(key: string, value: string): PresetEntry {
  return { key, value };
}

describe('parsePreset: sections', () => {
  it('reads [*] defaults and named model sections, in order', () => {
    const text = [
      '[*]',
      'ctx-size = 8192',
      'jinja = true',
      '',
      '[Qwen3-8B]',
      'hf = unsloth/Qwen3-8B-GGUF:Q4_K_M',
      '',
      '[gemma]',
      'temp = 0.7',
    ].join('\n');
    expect(parsed(text)).toEqual({
      defaults: [entry('ctx-size', '8192'), entry('jinja', 'true')],
      sections: [
        { name: 'Qwen3-8B', entries: [entry('hf', 'unsloth/Qwen3-8B-GGUF:Q4_K_M')] },
        { name: 'gemma', entries: [entry('temp', '0.7')] },
      ],
    });
  });

  it('reads an empty file as no defaults and no sections', () => {
    expect(parsed('')).toEqual({ defaults: [], sections: [] });
  });

  it.each(['[*]', '[global]', '[GLOBAL]', '[Global]', '[ * ]', '[ global ]'])(
    '%s is the defaults section',
    (header) => {
      expect(parsed(`${header}\nthreads = 8\n[m]\nngl = 99`)).toEqual({
        defaults: [entry('threads', '8')],
        sections: [{ name: 'm', entries: [entry('ngl', '99')] }],
      });
    },
  );

  it('puts entries written before any header into the defaults', () => {
    expect(parsed('threads = 8\n[m]\nngl = 99')).toEqual({
      defaults: [entry('threads', '8')],
      sections: [{ name: 'm', entries: [entry('ngl', '99')] }],
    });
  });

  it('appends every [*] / [global] block to the defaults, in file order', () => {
    const text = 'a = 1\n[*]\nb = 2\n[m]\nc = 3\n[*]\nd = 4\n[global]\ne = 5\n[n]\nf = 6';
    expect(parsed(text)).toEqual({
      defaults: [entry('a', '1'), entry('b', '2'), entry('d', '4'), entry('e', '5')],
      sections: [
        { name: 'm', entries: [entry('c', '3')] },
        { name: 'n', entries: [entry('f', '6')] },
      ],
    });
  });

  it('keeps a section name as written, trimmed, case included', () => {
    expect(parsed('[  Qwen3-Coder.Q4  ]\nx = 1').sections).toEqual([
      { name: 'Qwen3-Coder.Q4', entries: [entry('x', '1')] },
    ]);
  });

  it('keeps a section with no entries', () => {
    expect(parsed('[empty]\n[full]\nx = 1').sections).toEqual([
      { name: 'empty', entries: [] },
      { name: 'full', entries: [entry('x', '1')] },
    ]);
  });
});

describe('parsePreset: comments', () => {
  it.each(['# comment', '; comment', '   # indented', '\t; tab-indented', '#', ';'])(
    'ignores the comment line %j',
    (comment) => {
      expect(parsed(`${comment}\n[m]\n${comment}\nx = 1\n${comment}`)).toEqual({
        defaults: [],
        sections: [{ name: 'm', entries: [entry('x', '1')] }],
      });
    },
  );

  it('does not read a commented-out section or entry', () => {
    expect(parsed('# [hidden]\n; y = 2\n[m]\nx = 1')).toEqual({
      defaults: [],
      sections: [{ name: 'm', entries: [entry('x', '1')] }],
    });
  });

  it.each([
    ['x = 1 # trailing', 'x', '1'],
    ['x = 1\t# trailing', 'x', '1'],
    ['x = 1 ; trailing', 'x', '1'],
    ['x = 1\t;trailing', 'x', '1'],
    ['url = http://h/#frag', 'url', 'http://h/#frag'],
    ['url = http://h:1/v1#frag # note', 'url', 'http://h:1/v1#frag'],
    ['list = a;b;c', 'list', 'a;b;c'],
    ['color = #fff', 'color', ''],
    ['x =# not a comment', 'x', '# not a comment'],
  ])('reads %j as key %j, value %j', (line, key, value) => {
    expect(parsed(`[m]\n${line}`).sections[0]?.entries).toEqual([entry(key, value)]);
  });

  it('strips a comment after a section header', () => {
    expect(parsed('[m] # the model\nx = 1').sections).toEqual([
      { name: 'm', entries: [entry('x', '1')] },
    ]);
  });
});

describe('parsePreset: entries', () => {
  it('keeps a value with spaces as one value', () => {
    expect(parsed('[m]\nargs = a b c').sections[0]?.entries).toEqual([entry('args', 'a b c')]);
  });

  it('trims the key and the value but keeps inner spacing', () => {
    expect(parsed('[m]\n   key  =   spaced   value   ').sections[0]?.entries).toEqual([
      entry('key', 'spaced   value'),
    ]);
  });

  it('lower-cases keys and keeps the case of values', () => {
    expect(parsed('[m]\nCTX-Size = 1\nModel = Org/Big-Model').sections[0]?.entries).toEqual([
      entry('ctx-size', '1'),
      entry('model', 'Org/Big-Model'),
    ]);
  });

  it.each([
    ['hf: org/m:Q4', 'hf', 'org/m:Q4'],
    ['hf : org/m:Q4', 'hf', 'org/m:Q4'],
    ['a = b=c', 'a', 'b=c'],
    ['a: b = c', 'a', 'b = c'],
    ['a = b:c', 'a', 'b:c'],
    ['a=b', 'a', 'b'],
    ['flag =', 'flag', ''],
    ['flag:', 'flag', ''],
  ])('splits %j at the first = or :', (line, key, value) => {
    expect(parsed(`[m]\n${line}`).sections[0]?.entries).toEqual([entry(key, value)]);
  });

  it('keeps repeated keys, in order', () => {
    expect(parsed('[m]\nlora = a\nlora = b').sections[0]?.entries).toEqual([
      entry('lora', 'a'),
      entry('lora', 'b'),
    ]);
  });

  it('reads CRLF (and lone CR) line endings without keeping the carriage return', () => {
    expect(parsed('[*]\r\na = 1\r\n\r\n[m]\r\nb = two words\r\n')).toEqual({
      defaults: [entry('a', '1')],
      sections: [{ name: 'm', entries: [entry('b', 'two words')] }],
    });
    expect(parsed('[*]\ra = 1\r[m]\rb = 2')).toEqual({
      defaults: [entry('a', '1')],
      sections: [{ name: 'm', entries: [entry('b', '2')] }],
    });
  });

  it.each(['version = 1', 'VERSION = 1', 'version: 2'])(
    'skips the top-level %j written before any model section',
    (line) => {
      expect(parsed(`${line}\n[m]\nx = 1`)).toEqual({
        defaults: [],
        sections: [{ name: 'm', entries: [entry('x', '1')] }],
      });
    },
  );

  it('keeps version inside a model section (there it is a setting)', () => {
    expect(parsed('version = 1\n[m]\nversion = 2').sections).toEqual([
      { name: 'm', entries: [entry('version', '2')] },
    ]);
  });
});

describe('parsePreset: problems', () => {
  it.each([
    ['[abc', 'malformed section header "[abc"'],
    ['[abc] extra', 'malformed section header "[abc] extra"'],
    ['[]', 'empty section name'],
    ['[   ]', 'empty section name'],
    ['novalue', 'expected key = value, got "novalue"'],
    ['= value', 'expected key = value, got "= value"'],
    [': value', 'expected key = value, got ": value"'],
    ['two words = value', 'expected key = value, got "two words = value"'],
  ])('refuses %j with the source and line', (line, why) => {
    expect(problems(`[*]\n\n${line}`)).toEqual([`${SOURCE}:3: ${why}`]);
  });

  it('counts lines the same with CRLF endings', () => {
    expect(problems('[*]\r\n\r\nnovalue\r\n')).toEqual([
      `${SOURCE}:3: expected key = value, got "novalue"`,
    ]);
  });

  it('reports every problem at once, in line order', () => {
    const text = ['[abc', 'x = 1', '[]', 'bad line', '[ok]', 'y: 2', 'nokey'].join('\n');
    expect(problems(text, 'p.ini')).toEqual([
      'p.ini:1: malformed section header "[abc"',
      'p.ini:3: empty section name',
      'p.ini:4: expected key = value, got "bad line"',
      'p.ini:7: expected key = value, got "nokey"',
    ]);
  });
});
