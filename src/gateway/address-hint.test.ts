import { describe, expect, it } from 'vitest';

import { gatewayAddressHint, namesAddress } from './address-hint.ts';

describe('namesAddress', () => {
  it.each([
    ['http://127.0.0.1:24000', { host: '127.0.0.1', port: 24000 }, true],
    ['http://localhost:24000/v1', { host: '127.0.0.1', port: 24000 }, true],
    ['http://gpu-gw:4000', { host: '', port: 4000 }, true],
    ['http://gpu-gw', { host: '0.0.0.0', port: 80 }, true],
    ['https://gpu-gw', { host: '', port: 443 }, true],
    ['http://[::1]:4000', { host: '::1', port: 4000 }, true],
    ['http://127.0.0.1:4000', { host: '127.0.0.1', port: 24000 }, false],
    ['http://gpu-gw:4000', { host: '127.0.0.1', port: 4000 }, false],
    ['not a url', { host: '', port: 4000 }, false],
  ])('%s names %o: %s', (url, bound, expected) => {
    expect(namesAddress(url, bound)).toBe(expected);
  });
});

describe('gatewayAddressHint', () => {
  it('says nothing when the section already names this address', () => {
    const bound = { host: '127.0.0.1', port: 24000 };
    expect(gatewayAddressHint({ url: 'http://127.0.0.1:24000' }, bound)).toBeUndefined();
  });

  it('asks for the address when the section is missing', () => {
    expect(gatewayAddressHint(undefined, { host: '127.0.0.1', port: 24000 })).toBe(
      "Name http://127.0.0.1:24000 in the fleet file's gateway section (url:), so agents launched through the fleet file find this gateway",
    );
    expect(gatewayAddressHint(undefined, { host: '', port: 4000 })).toContain(
      'http://<this-machine>:4000',
    );
  });

  it('names both addresses when the section names another', () => {
    expect(gatewayAddressHint({ url: 'http://gpu-gw:4000' }, { host: '', port: 4001 })).toBe(
      "The fleet file's gateway section names http://gpu-gw:4000, but this gateway listens on http://<this-machine>:4001: name that there",
    );
  });
});
