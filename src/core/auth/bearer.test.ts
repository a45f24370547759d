/** The bearer check: the exact token passes under any case of the scheme name, nothing else does. */
import { describe, expect, it } from 'vitest';

import { bearerChecker } from './bearer.ts';

describe('bearerChecker', () => {
  const check = bearerChecker('s3cret');

  it('accepts the token under the scheme in any case (RFC 9110 §11.1)', () => {
    expect(check('Bearer s3cret')).toBe(true);
    expect(check('bearer s3cret')).toBe(true);
    expect(check('BEARER s3cret')).toBe(true);
  });

  it('refuses a missing header, another scheme, a wrong or empty token', () => {
    expect(check(undefined)).toBe(false);
    expect(check('Basic s3cret')).toBe(false);
    expect(check('Bearer s3cre')).toBe(false);
    expect(check('Bearer s3cret ')).toBe(false);
    expect(check('Bearer ')).toBe(false);
    expect(check('s3cret')).toBe(false);
  });

  it('lets everything through when no token is configured', () => {
    expect(bearerChecker(undefined)(undefined)).toBe(true);
  });
});
