import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseHelpers } from '../../../test/support/parse-result.ts';
import {
  parsePreset,
  type Preset,
  type PresetEntry,
  type PresetSection,
  selectSection,
} from './preset.ts';

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

describe('selectSection', () => {
  const section = (name: string, ...entries: PresetEntry[]): PresetSection => ({ name, entries });
  const preset = (...sections: PresetSection[]): Preset => ({
    defaults: [entry('threads', '8')],
    sections,
  });
  const qwen = section('Qwen3', entry('hf', 'org/qwen'));
  const gemma = section('gemma', entry('hf', 'org/gemma'));
  const llama = section('Llama-3', entry('hf', 'org/llama'));

  it.each(['Qwen3', 'qwen3', 'QWEN3', 'qWeN3'])('ALIAS %s picks [Qwen3]', (alias) => {
    expect(selectSection(preset(gemma, qwen, llama), alias, SOURCE)).toEqual({
      ok: true,
      value: qwen,
    });
  });

  it.each(['gemma', 'Llama-3'])('ALIAS %s picks its own section among several', (alias) => {
    const result = selectSection(preset(gemma, qwen, llama), alias, SOURCE);
    expect(result.ok && result.value.name).toBe(alias);
  });

  it.each([undefined, 'something-else', 'qwen3'])(
    'uses the only section whatever the ALIAS (%s)',
    (alias) => {
      expect(selectSection(preset(gemma), alias, SOURCE)).toEqual({ ok: true, value: gemma });
    },
  );

  it('refuses several sections and no ALIAS, listing them, as ERR_PRESET_SECTION_AMBIGUOUS', () => {
    const result = selectSection(preset(gemma, qwen, llama), undefined, SOURCE);
    expect(result.ok).toBe(false);
    if (result.ok) {
      return;
    }
    expect(result.code).toBe('ERR_PRESET_SECTION_AMBIGUOUS');
    expect(result.problems).toHaveLength(1);
    const [message = ''] = result.problems;
    expect(message).toContain(`${SOURCE}: `);
    expect(message).toContain('3 sections');
    expect(message).toContain('gemma, Qwen3, Llama-3');
    expect(message).toContain('ALIAS');
  });

  it('refuses several sections and an ALIAS that names none, listing the available ones', () => {
    const result = selectSection(preset(gemma, qwen), 'mistral', SOURCE);
    expect(result).toEqual({
      ok: false,
      problems: [
        `${SOURCE}: the preset has no [mistral] section for ALIAS mistral (available: gemma, Qwen3)`,
      ],
    });
    if (!result.ok) {
      expect(result.problems[0]).toContain('mistral');
      expect(result.problems[0]).toContain('available');
      expect(result.code).not.toBe('ERR_PRESET_SECTION_AMBIGUOUS');
    }
  });

  it.each([undefined, 'Qwen3'])('refuses a preset with no model sections (ALIAS %s)', (alias) => {
    const result = selectSection({ defaults: [entry('a', '1')], sections: [] }, alias, SOURCE);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]).toContain(SOURCE);
      expect(result.problems[0]).toContain('no model sections');
    }
  });

  it('picks the named section among any number, however the ALIAS is cased', () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.stringMatching(/^[A-Za-z][\w.-]{0,10}$/), {
            minLength: 2,
            maxLength: 8,
            selector: (name) => name.toLowerCase(),
          })
          .chain((names) =>
            fc.tuple(
              fc.constant(names),
              fc.nat(names.length - 1),
              fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
            ),
          ),
        ([names, pick, casing]) => {
          const sections = names.map((name, at) => section(name, entry('n', String(at))));
          const wanted = names[pick] ?? '';
          const alias = Array.from(wanted, (char, at) =>
            casing[at] === true ? char.toUpperCase() : char.toLowerCase(),
          ).join('');
          expect(selectSection(preset(...sections), alias, SOURCE)).toEqual({
            ok: true,
            value: sections[pick],
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/** Text that looks like an .ini file often enough to reach every branch. */
const iniLike = fc
  .array(
    fc.oneof(
      fc.string(),
      fc.string().map((name) => `[${name}]`),
      fc.constantFrom('[', ']', '[*]', '[global]', '[]', 'version = 1', '# c', '; c', '=', ':'),
      fc
        .tuple(fc.string(), fc.constantFrom('=', ':', ' = '), fc.string())
        .map((parts) => parts.join('')),
    ),
    { maxLength: 12 },
  )
  .chain((lines) => fc.constantFrom('\n', '\r\n', '\r').map((eol) => lines.join(eol)));

/** A value: no surrounding whitespace, no leading `#`/`;`, no `#`/`;` right after whitespace. */
const iniValue = fc
  .stringMatching(/^[\w./:=#;-]+( [\w./:=-]+){0,3}$/)
  .filter((value) => !/^[#;]/.test(value));

describe('parsePreset: properties', () => {
  it('never throws, for any text: it parses or lists non-empty problems naming the source', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), iniLike), (text) => {
        const result = parsePreset(text, 'P');
        if (result.ok) {
          for (const { key } of [
            ...result.value.defaults,
            ...result.value.sections.flatMap((each) => each.entries),
          ]) {
            expect(key).toBe(key.toLowerCase());
            expect(key).not.toBe('');
          }
        } else {
          expect(result.problems.length).toBeGreaterThan(0);
          for (const problem of result.problems) {
            expect(problem).toMatch(/^P:\d+: \S/);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('reads back the sections and entries of a generated preset', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/).filter((name) => name !== 'version');
    const entries = fc.array(
      fc.record({
        key,
        upper: fc.boolean(),
        separator: fc.constantFrom('=', ' = ', ':', '\t=\t', ' : '),
        value: iniValue,
        trailing: fc.constantFrom('', ' # note', '\t; note', '  '),
      }),
      { maxLength: 4 },
    );
    const name = fc
      .stringMatching(/^[A-Za-z0-9][\w.-]{0,12}$/)
      .filter((each) => each.toLowerCase() !== 'global');
    fc.assert(
      fc.property(
        entries,
        fc.array(fc.tuple(name, entries), { maxLength: 4 }),
        fc.constantFrom('\n', '\r\n'),
        (defaults, sections, eol) => {
          const render = (list: typeof defaults): string[] =>
            list.map(
              (each) =>
                `${each.upper ? each.key.toUpperCase() : each.key}${each.separator}${each.value}${each.trailing}`,
            );
          const text = [
            '[*]',
            ...render(defaults),
            ...sections.flatMap(([header, list]) => [`[${header}]`, '; comment', ...render(list)]),
          ].join(eol);
          const strip = (list: typeof defaults): PresetEntry[] =>
            list.map((each) => entry(each.key, each.value));
          expect(parsed(text)).toEqual({
            defaults: strip(defaults),
            sections: sections.map(([header, list]) => ({ name: header, entries: strip(list) })),
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
