/** docs/design.md D28: which token may use the fleet and which may start and stop its nodes. */
import { describe, expect, it } from 'vitest';

import { tokenHash } from '../../core/fleet/file/fleet-callers.ts';
import { callerChecker, rightsChecker } from './caller-rights.ts';

const bearer = (token: string): string => `Bearer ${token}`;

describe('rightsChecker', () => {
  it('with an operator token: the gateway token uses, the operator token operates, others are refused', () => {
    const rights = rightsChecker({ token: 'gw', operatorToken: 'op' });
    expect(rights(bearer('gw'))).toBe('use');
    expect(rights(bearer('op'))).toBe('operate');
    expect(rights('bearer op')).toBe('operate');
    expect(rights(bearer('nope'))).toBeUndefined();
    expect(rights(bearer('op '))).toBeUndefined();
    expect(rights(undefined)).toBeUndefined();
  });

  it('without an operator token: the gateway token may do everything', () => {
    const rights = rightsChecker({ token: 'gw' });
    expect(rights(bearer('gw'))).toBe('operate');
    expect(rights(bearer('op'))).toBeUndefined();
    expect(rights(undefined)).toBeUndefined();
  });

  it('without a gateway token: anyone uses the fleet, only the operator token operates it', () => {
    const rights = rightsChecker({ operatorToken: 'op' });
    expect(rights(undefined)).toBe('use');
    expect(rights(bearer('anything'))).toBe('use');
    expect(rights(bearer('op'))).toBe('operate');
  });

  it('without either token: every caller operates (a loopback gateway, as before)', () => {
    expect(rightsChecker({})(undefined)).toBe('operate');
  });
});

describe('callerChecker (docs/design.md D29)', () => {
  const callers = [
    {
      name: 'ci',
      tokenEnv: 'CI',
      tokenSha256: tokenHash('ci-token'),
      models: ['tiny*'],
      wake: false,
      upstreams: true,
      concurrency: 1,
      priority: 'low' as const,
    },
    {
      name: 'alice',
      tokenSha256: tokenHash('alice-token'),
      wake: true,
      upstreams: true,
      priority: 'normal' as const,
    },
  ];

  it('names each caller by its token, with its rights; the gateway and operator keep every right', () => {
    const callerOf = callerChecker({ token: 'gw', operatorToken: 'op', callers });
    const ci = callerOf(bearer('ci-token'));
    expect(ci).toMatchObject({
      name: 'ci',
      rights: 'use',
      limited: true,
      wake: false,
      concurrency: 1,
    });
    expect(ci?.allows('tiny-q4')).toBe(true);
    expect(ci?.allows('big')).toBe(false);
    expect(callerOf(bearer('alice-token'))).toMatchObject({
      name: 'alice',
      limited: false,
      wake: true,
    });
    expect(callerOf(bearer('gw'))).toMatchObject({ name: 'gateway', rights: 'use', wake: true });
    expect(callerOf(bearer('op'))).toMatchObject({
      name: 'operator',
      rights: 'operate',
      wake: true,
    });
    expect(callerOf(bearer('gw'))?.allows('anything')).toBe(true);
    expect(callerOf(bearer('ci-token '))).toBeUndefined();
    expect(callerOf(bearer(tokenHash('ci-token')))).toBeUndefined();
    expect(callerOf(undefined)).toBeUndefined();
  });

  it('without a gateway token a caller is still known by its token; others use the fleet as gateway', () => {
    const callerOf = callerChecker({ callers });
    expect(callerOf(bearer('ci-token'))?.name).toBe('ci');
    expect(callerOf(bearer('other'))?.name).toBe('gateway');
  });

  it("refuses a caller holding the gateway's own token, without showing it", () => {
    const make = () => callerChecker({ token: 'ci-token', callers });
    expect(make).toThrow(`caller "ci" holds the gateway's own token`);
    expect(make).not.toThrow(/ci-token/);
  });
});
