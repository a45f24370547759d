/** The Svcfile parser's values: CONTEXT, PARALLEL, BASEURL and ENV, each accepted and refused. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseHelpers } from '../../../test/support/results/parse-result.ts';
import { type BaseUrl, parseBaseUrl, parseSvcfile } from './parse.ts';

const SOURCE = 'proj/Svcfile';

const { parsed, problems } = parseHelpers(parseSvcfile, 'the Svcfile', SOURCE);

/** One instruction after a valid PROVIDER line, so line numbers in messages are 2. */
function withProvider(line: string): string {
  return `PROVIDER llamacpp\n${line}`;
}

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

describe('BASEURL keeps a port equal to the scheme default', () => {
  it.each([
    ['localhost:80', { host: 'localhost', port: 80, path: '' }],
    ['http://127.0.0.1:80/v1', { host: '127.0.0.1', port: 80, path: '/v1' }],
    ['https://gw:443', { host: 'gw', port: 443, path: '' }],
  ])('%s', (value, expected) => {
    expect(parseBaseUrl(value)).toEqual(expected);
  });
});
