/**
 * The preset parser's properties over generated text (fast-check, fixed numRuns): it never
 * throws, and reads back the sections and entries of a generated preset.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseHelpers } from '../../../test/support/results/parse-result.ts';
import { parsePreset, type PresetEntry } from './preset.ts';

const SOURCE = 'presets/qwen.ini';

const { parsed } = parseHelpers(parsePreset, 'the preset', SOURCE);

function entry(key: string, value: string): PresetEntry {
  return { key, value };
}

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
