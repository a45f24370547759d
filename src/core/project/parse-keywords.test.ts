/**
 * The Svcfile parser's keyword rules: one value each, repeats, unknown keywords, and how
 * problems are reported (all at once, in line order, naming the source and line).
 */
import { describe, expect, it } from 'vitest';

import { parseHelpers } from '../../../test/support/results/parse-result.ts';
import { type Keyword, KEYWORDS, parseSvcfile } from './parse.ts';

const SOURCE = 'proj/Svcfile';
const EXPECTED_LIST =
  'PROVIDER, MODEL, ALIAS, CONTEXT, OUTPUT, PARALLEL, BASEURL, PRESET, ENV, COMMAND, HEALTH, STOP, ENGINE';

const { parsed, problems } = parseHelpers(parseSvcfile, 'the Svcfile', SOURCE);

/** One instruction after a valid PROVIDER line, so line numbers in messages are 2. */
function withProvider(line: string): string {
  return `PROVIDER llamacpp\n${line}`;
}

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
    COMMAND: 'server --port ${PORT}',
    HEALTH: '/ready',
    STOP: 'kill ${PID}',
    ENGINE: '/opt/llama-server',
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
        'dir/Svcfile: missing PROVIDER instruction (one of llamacpp, omlx, vllm, mtplx, command)',
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
      `${SOURCE}: missing PROVIDER instruction (one of llamacpp, omlx, vllm, mtplx, command)`,
    ]);
  });
});

describe('parseSvcfile: command lines (docs/design.md D31)', () => {
  it('splits COMMAND and STOP with shell quoting, keeping ${PORT} and ${PID} for later', () => {
    const project = parsed(
      [
        'PROVIDER command',
        `COMMAND docker run --rm -p \${PORT}:8080 "my image" 'a b'\\ c`,
        'STOP docker stop "svc-${PID}"   # a comment',
        'HEALTH /v1/models',
      ].join('\n'),
    );
    expect(project.command).toEqual({
      value: ['docker', 'run', '--rm', '-p', '${PORT}:8080', 'my image', 'a b c'],
      line: 2,
    });
    expect(project.stop).toEqual({ value: ['docker', 'stop', 'svc-${PID}'], line: 3 });
    expect(project.health).toEqual({ value: '/v1/models', line: 4 });
  });

  it('refuses an empty COMMAND, an unclosed quote and a HEALTH that is no path', () => {
    expect(problems('PROVIDER command\nCOMMAND\nSTOP kill "x\nHEALTH health')).toEqual([
      `${SOURCE}:2: COMMAND needs a value`,
      `${SOURCE}:3: STOP: a double quote is never closed`,
      `${SOURCE}:4: HEALTH "health" must be a path starting with /, such as /health`,
    ]);
  });
});
