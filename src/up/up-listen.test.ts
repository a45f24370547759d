/**
 * `svc up`'s gateway address (docs/design.md D27): the fleet file's gateway section when it names
 * this machine, else 127.0.0.1:4000.
 */
import { describe, expect, it } from 'vitest';

import { upListenAddress } from './up-listen.ts';

const MACHINE = { addresses: ['127.0.0.1', '10.0.0.7', 'fe80::1'], hostname: 'gpu-box' };

describe('upListenAddress', () => {
  it.each<[string, string | undefined, string]>([
    ['no gateway section', undefined, '127.0.0.1:4000'],
    ['a loopback name', 'http://localhost:4100', '127.0.0.1:4100'],
    ['a loopback address', 'http://127.0.0.1:4200/v1', '127.0.0.1:4200'],
    ["one of this machine's addresses", 'http://10.0.0.7:4000', '10.0.0.7:4000'],
    ["an IPv6 address of this machine's", 'http://[fe80::1]:4000', '[fe80::1]:4000'],
    ["this machine's host name (every interface)", 'http://GPU-box:4300', ':4300'],
    ['no port (http default)', 'http://10.0.0.7', '10.0.0.7:80'],
    ['another machine', 'http://other-box:4000', '127.0.0.1:4000'],
    ['an address not this machine', 'http://10.0.0.8:4000', '127.0.0.1:4000'],
    ['https (a proxy in front)', 'https://gpu-box', '127.0.0.1:4000'],
    ['not a URL', 'gpu-box:4000', '127.0.0.1:4000'],
  ])('%s', (_name, url, expected) => {
    expect(upListenAddress(url, MACHINE)).toBe(expected);
  });
});
