import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { thrownBy } from '../../../test/support/results/errors.ts';
import { formatListenAddress, isLoopbackHost, parseListenAddress } from './listen-address.ts';

describe('parseListenAddress', () => {
  it.each([
    [':4242', '', 4242],
    ['127.0.0.1:4242', '127.0.0.1', 4242],
    ['127.0.0.1:0', '127.0.0.1', 0],
    ['0.0.0.0:80', '0.0.0.0', 80],
    ['[::1]:4242', '::1', 4242],
    ['[::]:0', '::', 0],
    ['localhost:65535', 'localhost', 65535],
    ['gpu-box.lan:4000', 'gpu-box.lan', 4000],
  ])('parses %s', (text, host, port) => {
    expect(parseListenAddress(text, '--api-addr')).toEqual({ host, port });
  });

  it.each([
    ['4242', 'did you mean ":4242"?'],
    ['localhost', 'expected host:port'],
    ['127.0.0.1:', 'the port is missing'],
    ['127.0.0.1:http', 'port "http" is not a number'],
    ['127.0.0.1:-1', 'port "-1" is not a number'],
    ['127.0.0.1:65536', 'port 65536 is out of range'],
    ['::1:4242', 'put an IPv6 address in brackets'],
    ['[::1:4242', 'unbalanced brackets'],
    ['[127.0.0.1]:80', 'is not an IPv6 address'],
    ['bad_host!:80', 'is not a host name or IP address'],
  ])('refuses %s, naming the flag', (text, why) => {
    const error = thrownBy(() => parseListenAddress(text, '--api-addr'));
    expect(error.code).toBe('ERR_LISTEN_ADDRESS');
    expect(error.message).toContain(`--api-addr "${text}"`);
    expect(error.message).toContain(why);
  });

  it('round-trips through formatListenAddress for any IPv4 host and port', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 65535 }), (host, port) => {
        const text = `${host}:${port}`;
        const parsed = parseListenAddress(text, '--listen');
        expect(parsed).toEqual({ host, port });
        expect(formatListenAddress(parsed)).toBe(text);
      }),
      { numRuns: 100 },
    );
  });

  it('round-trips bracketed IPv6 hosts', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.integer({ min: 0, max: 65535 }), (host, port) => {
        const parsed = parseListenAddress(`[${host}]:${port}`, '--listen');
        expect(parsed).toEqual({ host, port });
        expect(formatListenAddress(parsed)).toBe(`[${host}]:${port}`);
      }),
      { numRuns: 100 },
    );
  });
});

describe('isLoopbackHost', () => {
  it('holds for all of 127.0.0.0/8', () => {
    fc.assert(
      fc.property(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)), ([a, b, c]) => {
        expect(isLoopbackHost(`127.${a}.${b}.${c}`)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('fails for every IPv4 address outside 127.0.0.0/8', () => {
    fc.assert(
      fc.property(fc.ipV4(), (host) => {
        expect(isLoopbackHost(host)).toBe(host.startsWith('127.'));
      }),
      { numRuns: 100 },
    );
  });

  it.each(['::1', '0:0:0:0:0:0:0:1', '[::1]', 'localhost', 'LocalHost', '::ffff:127.0.0.1'])(
    '%s is loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each(['', '0.0.0.0', '::', '::2', '::ffff:10.0.0.1', '128.0.0.1', 'localhost.example', 'box'])(
    '"%s" is not loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );
});
