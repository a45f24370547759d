/** GUIDE D28: which token may use the fleet and which may start and stop its nodes. */
import { describe, expect, it } from 'vitest';

import { rightsChecker } from './caller-rights.ts';

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
