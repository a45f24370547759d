import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseHelpers } from '../../../test/support/parse-result.ts';
import { type BaseUrl, type Keyword, KEYWORDS, parseBaseUrl, parseSvcfile } from './parse.ts';

const SOURCE = 'proj/Svcfile';
const EXPECTED_LIST = 'PROVIDER, MODEL, ALIAS, CONTEXT, OUTPUT, PARALLEL, BASEURL, PRESET, ENV';

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

  it('exports the nine keywords in spec order', () => {
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
      `${SOURCE}: missing PROVIDER instruction (one of llamacpp, omlx, vllm, mtplx)`,
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

describe('parseSvcfile: one value per keyword', () => {
  it.each(KEYWORDS.filter((keyword) => keyword !== 'PROVIDER'))(
    '%s with no value is an error',
    (keyword) => {
      expect(problems(withProvider(keyword))).toEqual([`${SOURCE}:2: ${keyword} needs a value`]);
    },
  );

  it('names the keyword in upper case whatever the spelling', () => {
    expect(problems(withProvider('alias   '))).toEqual([`${SOURCE}:2: ALIAS needs a value`]);
  });

  it('PROVIDER with no value is an error (and PROVIDER is then missing)', () => {
    const found = problems('PROVIDER');
    expect(found).toContain(`${SOURCE}:1: PROVIDER needs a value`);
    expect(found.some((problem) => problem.startsWith(`${SOURCE}: missing PROVIDER`))).toBe(true);
  });

  it.each([
    ['MODEL a b', 'MODEL', 2],
    ['ALIAS a b c', 'ALIAS', 3],
    ['CONTEXT 32 k', 'CONTEXT', 2],
    ['ENV A=b c', 'ENV', 2],
    ['BASEURL http://h:1 /v1', 'BASEURL', 2],
  ] as const)('%j is refused as several values', (line, keyword, count) => {
    const found = problems(withProvider(line));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      new RegExp(`^${SOURCE}:2: ${keyword} takes a single value, got ${count}\\b`),
    );
  });

  it('refuses two PROVIDER values', () => {
    expect(problems('PROVIDER a b')[0]).toContain(
      `${SOURCE}:1: PROVIDER takes a single value, got 2`,
    );
  });
});

describe('parseSvcfile: repeated keywords', () => {
  const samples: Record<Exclude<Keyword, 'ENV'>, string> = {
    PROVIDER: 'llamacpp',
    MODEL: 'm',
    ALIAS: 'a',
    CONTEXT: '4k',
    OUTPUT: 'out',
    PARALLEL: '2',
    BASEURL: 'localhost:9090',
    PRESET: 'p.ini',
  };

  it.each(Object.entries(samples))('a second %s names the line of the first', (keyword, value) => {
    const text = [
      '# header',
      `${keyword} ${value}`,
      '',
      `${keyword.toLowerCase()} ${value}`,
      ...(keyword === 'PROVIDER' ? [] : ['PROVIDER llamacpp']),
    ].join('\n');
    expect(problems(text)).toEqual([`${SOURCE}:4: duplicate ${keyword} (already set on line 2)`]);
  });

  it('reports each further repeat against the first line', () => {
    expect(problems('PROVIDER a\nPARALLEL 1\nPARALLEL 2\nPARALLEL 3')).toEqual([
      `${SOURCE}:3: duplicate PARALLEL (already set on line 2)`,
      `${SOURCE}:4: duplicate PARALLEL (already set on line 2)`,
    ]);
  });

  it('lets ENV repeat, keeping file order (a repeated key too)', () => {
    expect(parsed('ENV B=2\nPROVIDER x\nENV A=1\n# gap\nenv B=3\nEnv C=').env).toEqual([
      { value: { key: 'B', value: '2' }, line: 1 },
      { value: { key: 'A', value: '1' }, line: 3 },
      { value: { key: 'B', value: '3' }, line: 5 },
      { value: { key: 'C', value: '' }, line: 6 },
    ]);
  });
});

describe('parseSvcfile: unknown keywords', () => {
  it.each(['Modle', 'FROM', 'RUN', 'provider:', 'X'])(
    'refuses %s, naming it as written and listing the keywords',
    (written) => {
      expect(problems(withProvider(`${written} value`))).toEqual([
        `${SOURCE}:2: unknown keyword "${written}" (expected ${EXPECTED_LIST})`,
      ]);
    },
  );

  it('refuses an unknown keyword even with no value', () => {
    expect(problems(withProvider('CMD'))).toEqual([
      `${SOURCE}:2: unknown keyword "CMD" (expected ${EXPECTED_LIST})`,
    ]);
  });
});

describe('parseSvcfile: CONTEXT', () => {
  it.each([
    ['32768', 32768],
    ['32k', 32_000],
    ['32K', 32_000],
    ['128K', 128_000],
    ['1m', 1_000_000],
    ['1M', 1_000_000],
    ['1.5k', 1500],
  ])('CONTEXT %s is %d tokens', (value, tokens) => {
    expect(parsed(withProvider(`CONTEXT ${value}`)).context).toEqual({ value: tokens, line: 2 });
  });

  it.each(['0', '-5', '-5k', 'abc', 'k', '12x', '0.0001k', '0k', '1.5', '32kb'])(
    'refuses CONTEXT %s, naming the value',
    (value) => {
      expect(problems(withProvider(`CONTEXT ${value}`))).toEqual([
        `${SOURCE}:2: CONTEXT "${value}" is not a positive size (write 32768, 32k or 1m)`,
      ]);
    },
  );
});

describe('parseSvcfile: PARALLEL', () => {
  it.each([
    ['1', 1],
    ['4', 4],
    ['64', 64],
    ['007', 7],
  ])('PARALLEL %s is %d slots', (value, slots) => {
    expect(parsed(withProvider(`PARALLEL ${value}`)).parallel).toEqual({ value: slots, line: 2 });
  });

  it.each([
    '0',
    '00',
    '-1',
    'abc',
    '2.5',
    '2.0',
    '3.',
    '4k',
    '1e2',
    '+3',
    '0x10',
    '99999999999999999999',
  ])('refuses PARALLEL %s', (value) => {
    expect(problems(withProvider(`PARALLEL ${value}`))).toEqual([
      `${SOURCE}:2: PARALLEL "${value}" must be a positive integer`,
    ]);
  });

  it('reads every positive integer up to a large bound', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000_000 }), (slots) => {
        expect(parsed(withProvider(`PARALLEL ${slots}`)).parallel?.value).toBe(slots);
      }),
      { numRuns: 100 },
    );
  });
});

describe('parseSvcfile: BASEURL', () => {
  it.each<[string, BaseUrl]>([
    ['http://127.0.0.1:9090/v1', { host: '127.0.0.1', port: 9090, path: '/v1' }],
    ['localhost:9090', { host: 'localhost', port: 9090, path: '' }],
    ['127.0.0.1:9090', { host: '127.0.0.1', port: 9090, path: '' }],
    ['https://gw/v1', { host: 'gw', path: '/v1' }],
    ['http://[::1]:8080', { host: '::1', port: 8080, path: '' }],
    ['[::1]:8080', { host: '::1', port: 8080, path: '' }],
    ['localhost', { host: 'localhost', path: '' }],
    ['http://h:1/', { host: 'h', port: 1, path: '' }],
    ['http://h:1/v1/', { host: 'h', port: 1, path: '/v1' }],
    ['gpu-box.lan:8000/api/v1', { host: 'gpu-box.lan', port: 8000, path: '/api/v1' }],
  ])('BASEURL %s', (value, expected) => {
    expect(parsed(withProvider(`BASEURL ${value}`)).baseUrl).toEqual({ value: expected, line: 2 });
    expect(parseBaseUrl(value)).toEqual(expected);
  });

  it.each([
    ['ftp://x', 'scheme "ftp" is not http or https'],
    ['file:///etc/passwd', 'scheme "file" is not http or https'],
    ['http://', 'not a URL or host:port'],
    [':9090', 'not a URL or host:port'],
    ['localhost:99999', 'not a URL or host:port'],
    ['localhost:port', 'not a URL or host:port'],
  ])('refuses BASEURL %s', (value, why) => {
    expect(problems(withProvider(`BASEURL ${value}`))).toEqual([
      `${SOURCE}:2: BASEURL "${value}": ${why}`,
    ]);
    expect(parseBaseUrl(value)).toBe(why);
  });
});

describe('parseSvcfile: ENV', () => {
  it.each([
    ['TOKEN=a=b=c', 'TOKEN', 'a=b=c'],
    ['X=', 'X', ''],
    ['_private1=Yes', '_private1', 'Yes'],
    ['URL=http://h:1/?a=b', 'URL', 'http://h:1/?a=b'],
    ['A==', 'A', '='],
  ])('ENV %s', (value, key, envValue) => {
    expect(parsed(withProvider(`ENV ${value}`)).env).toEqual([
      { value: { key, value: envValue }, line: 2 },
    ]);
  });

  it.each(['JUST_A_NAME', '=value', '1X=a', 'A-B=c', 'A.B=c', '=', 'é=1'])(
    'refuses ENV %s',
    (value) => {
      expect(problems(withProvider(`ENV ${value}`))).toEqual([
        `${SOURCE}:2: ENV takes KEY=VALUE with a variable name before "=", got "${value}"`,
      ]);
    },
  );
});

describe('parseSvcfile: reporting', () => {
  it('prefixes every problem with the source and its line', () => {
    const source = 'https://example.com/team/Svcfile';
    const found = problems('PROVIDER x\n\nMODEL\nPARALLEL 0', source);
    expect(found).toEqual([
      `${source}:3: MODEL needs a value`,
      `${source}:4: PARALLEL "0" must be a positive integer`,
    ]);
  });

  it.each(['', '\n\n', '# only a comment', 'MODEL m\nALIAS a'])(
    'reports a missing PROVIDER for %j, naming the source',
    (text) => {
      expect(problems(text, 'dir/Svcfile')).toEqual([
        'dir/Svcfile: missing PROVIDER instruction (one of llamacpp, omlx, vllm, mtplx)',
      ]);
    },
  );

  it('reports every problem at once, in line order, then the missing PROVIDER', () => {
    const text = [
      'MODEL a b',
      'CONTEXT nope',
      'PARALLEL -1',
      'BASEURL ftp://x',
      'ENV NOEQUALS',
      'WHAT now',
      'ALIAS',
      'ALIAS x',
      'ALIAS y',
    ].join('\n');
    expect(problems(text)).toEqual([
      `${SOURCE}:1: MODEL takes a single value, got 2 (values cannot contain spaces)`,
      `${SOURCE}:2: CONTEXT "nope" is not a positive size (write 32768, 32k or 1m)`,
      `${SOURCE}:3: PARALLEL "-1" must be a positive integer`,
      `${SOURCE}:4: BASEURL "ftp://x": scheme "ftp" is not http or https`,
      `${SOURCE}:5: ENV takes KEY=VALUE with a variable name before "=", got "NOEQUALS"`,
      `${SOURCE}:6: unknown keyword "WHAT" (expected ${EXPECTED_LIST})`,
      `${SOURCE}:7: ALIAS needs a value`,
      `${SOURCE}:9: duplicate ALIAS (already set on line 8)`,
      `${SOURCE}: missing PROVIDER instruction (one of llamacpp, omlx, vllm, mtplx)`,
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

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

describe('BASEURL keeps a port equal to the scheme default', () => {
  it.each([
    ['localhost:80', { host: 'localhost', port: 80, path: '' }],
    ['http://127.0.0.1:80/v1', { host: '127.0.0.1', port: 80, path: '/v1' }],
    ['https://gw:443', { host: 'gw', port: 443, path: '' }],
  ])('%s', (value, expected) => {
    expect(parseBaseUrl(value)).toEqual(expected);
  });
});
