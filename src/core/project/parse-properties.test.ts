/**
 * The Svcfile parser's properties over generated text (fast-check, fixed numRuns): it never
 * throws, and reads back exactly what a generated valid Svcfile says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseHelpers } from '../../../test/support/results/parse-result.ts';
import { type Keyword, KEYWORDS, parseSvcfile } from './parse.ts';

const SOURCE = 'proj/Svcfile';

const { parsed } = parseHelpers(parseSvcfile, 'the Svcfile', SOURCE);

/** Any text without a line break, for comments. */
const commentText = fc.string({ unit: 'binary' }).map((text) => text.replace(/[\r\n]/g, ''));

/** A value with no whitespace that does not start with `#` (so it is not read as a comment). */
const plainValue = fc.stringMatching(/^[\w./:@+,-][\w./:@+,#=-]{0,20}$/);

/** Text that looks like Svcfile lines often enough to reach every branch. */
const svcfileLike = fc
  .array(
    fc.tuple(
      fc.constantFrom<string>(...KEYWORDS, 'provider', 'Env', 'BOGUS', '#', ''),
      fc.constantFrom('', ' ', '\t', '  '),
      fc.oneof(
        fc.string(),
        plainValue,
        fc.constantFrom('32k', '0', 'a=b', 'ftp://x', 'localhost:1', '[::1', 'http://[', '#'),
      ),
    ),
    { maxLength: 12 },
  )
  .chain((lines) =>
    fc
      .constantFrom('\n', '\r\n', '\r')
      .map((eol) => lines.map(([keyword, gap, value]) => `${keyword}${gap}${value}`).join(eol)),
  );

describe('parseSvcfile: properties', () => {
  it('never throws, for any text: it parses or lists non-empty problems naming the source', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), svcfileLike), (text) => {
        const result = parseSvcfile(text, 'S');
        if (result.ok) {
          expect(typeof result.value.provider.value).toBe('string');
          expect(result.value.source).toBe('S');
        } else {
          expect(result.problems.length).toBeGreaterThan(0);
          for (const problem of result.problems) {
            expect(typeof problem).toBe('string');
            expect(problem.startsWith('S:')).toBe(true);
            expect(problem.length).toBeGreaterThan('S: '.length);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  type Field =
    'provider' | 'model' | 'alias' | 'context' | 'output' | 'parallel' | 'baseUrl' | 'preset';
  interface Instruction {
    keyword: Keyword;
    written: string;
    field: Field | 'env';
    expected: unknown;
  }

  const verbatim = (keyword: Keyword, field: Field): fc.Arbitrary<Instruction> =>
    plainValue.map((value) => ({ keyword, written: value, field, expected: value }));

  const context: fc.Arbitrary<Instruction> = fc
    .tuple(
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.constantFrom<[string, number]>(
        ['', 1],
        ['k', 1_000],
        ['K', 1_000],
        ['m', 1_000_000],
        ['M', 1_000_000],
      ),
    )
    .map(([count, [suffix, multiplier]]) => ({
      keyword: 'CONTEXT',
      written: `${count}${suffix}`,
      field: 'context',
      expected: count * multiplier,
    }));

  const parallel: fc.Arbitrary<Instruction> = fc.integer({ min: 1, max: 4096 }).map((slots) => ({
    keyword: 'PARALLEL',
    written: String(slots),
    field: 'parallel',
    expected: slots,
  }));

  // Ports from 1024 up: http's default port 80 (and https's 443) is dropped by the URL parser.
  const baseUrl: fc.Arbitrary<Instruction> = fc
    .record({
      scheme: fc.constantFrom('', 'http://', 'https://', 'HTTP://'),
      host: fc.oneof(fc.ipV4(), fc.constantFrom('localhost', 'gpu-box.lan', 'gw')),
      port: fc.option(fc.integer({ min: 1024, max: 65535 }), { nil: undefined }),
      segments: fc.array(fc.stringMatching(/^[a-z0-9_-]{1,8}$/), { maxLength: 3 }),
      slash: fc.boolean(),
    })
    .map(({ scheme, host, port, segments, slash }) => {
      const path = segments.map((segment) => `/${segment}`).join('');
      return {
        keyword: 'BASEURL',
        written: `${scheme}${host}${port === undefined ? '' : `:${port}`}${path}${slash ? '/' : ''}`,
        field: 'baseUrl',
        expected: { host, ...(port === undefined ? {} : { port }), path },
      };
    });

  const env: fc.Arbitrary<Instruction> = fc
    .tuple(fc.stringMatching(/^[A-Za-z_]\w{0,10}$/), fc.stringMatching(/^[\w./:@+,#=-]{0,12}$/))
    .map(([key, value]) => ({
      keyword: 'ENV',
      written: `${key}=${value}`,
      field: 'env',
      expected: { key, value },
    }));

  const instructions: fc.Arbitrary<Instruction[]> = fc
    .tuple(
      verbatim('PROVIDER', 'provider'),
      fc.tuple(
        fc.option(verbatim('MODEL', 'model'), { nil: undefined }),
        fc.option(verbatim('ALIAS', 'alias'), { nil: undefined }),
        fc.option(context, { nil: undefined }),
        fc.option(verbatim('OUTPUT', 'output'), { nil: undefined }),
        fc.option(parallel, { nil: undefined }),
        fc.option(baseUrl, { nil: undefined }),
        fc.option(verbatim('PRESET', 'preset'), { nil: undefined }),
      ),
      fc.array(env, { maxLength: 4 }),
    )
    .chain(([provider, optional, envs]) => {
      const all = [provider, ...optional, ...envs].filter(
        (instruction): instruction is Instruction => instruction !== undefined,
      );
      return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
    });

  const filler = fc.oneof(
    fc.constantFrom('', ' ', '\t', ' \t '),
    fc
      .tuple(fc.constantFrom('', '  ', '\t'), commentText)
      .map(([indent, text]) => `${indent}#${text}`),
  );

  const layout = fc.record({
    before: fc.array(filler, { maxLength: 2 }),
    casing: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    indent: fc.constantFrom('', ' ', '\t', ' \t'),
    separator: fc.constantFrom(' ', '\t', '  ', ' \t ', '\t\t'),
    trailing: fc.oneof(
      fc.constantFrom('', ' ', '\t'),
      fc
        .tuple(fc.constantFrom(' ', '\t', '  '), commentText)
        .map(([gap, text]) => `${gap}#${text}`),
    ),
  });

  const validFile = instructions.chain((list) =>
    fc
      .tuple(
        fc.array(layout, { minLength: list.length, maxLength: list.length }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
      )
      .map(([layouts, eol, finalEol]) => {
        const lines: string[] = [];
        const expected: Record<string, unknown> = { source: 'gen/Svcfile', env: [] };
        const envs: unknown[] = [];
        list.forEach((instruction, index) => {
          const look = layouts[index];
          if (look === undefined) {
            throw new Error('layout missing');
          }
          lines.push(...look.before);
          const keyword = Array.from(instruction.keyword, (char, at) =>
            look.casing[at] === true ? char.toLowerCase() : char,
          ).join('');
          lines.push(
            `${look.indent}${keyword}${look.separator}${instruction.written}${look.trailing}`,
          );
          const located = { value: instruction.expected, line: lines.length };
          if (instruction.field === 'env') {
            envs.push(located);
          } else {
            expected[instruction.field] = located;
          }
        });
        expected.env = envs;
        return { text: lines.join(eol) + (finalEol ? eol : ''), expected };
      }),
  );

  it('reads back exactly what a generated valid Svcfile says', () => {
    fc.assert(
      fc.property(validFile, ({ text, expected }) => {
        expect(parsed(text, 'gen/Svcfile')).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
