import { describe, expect, it } from 'vitest';

import { ERROR_CATALOG, type ErrorCode, SvcError, toSvcError } from './errors.ts';

describe('error catalog', () => {
  it('exits 2 for every user error and 1 for every system error', () => {
    for (const code of Object.keys(ERROR_CATALOG) as ErrorCode[]) {
      const error = new SvcError(code, 'x');
      expect(error.exitCode).toBe(ERROR_CATALOG[code] === 'user' ? 2 : 1);
    }
  });

  it('classifies token and listen problems as user errors and bind failures as system ones', () => {
    expect(new SvcError('ERR_TWO_TOKEN_SOURCES', 'x').kind).toBe('user');
    expect(new SvcError('ERR_NO_TOKEN_NON_LOOPBACK', 'x').kind).toBe('user');
    expect(new SvcError('ERR_LOG_LEVEL', 'x').kind).toBe('user');
    expect(new SvcError('ERR_LISTEN_FAILED', 'x').kind).toBe('system');
  });

  it('classifies what a host lacks as a user error and an engine that would not start as a system one', () => {
    // A script calling svc: 2 says fix the input (the Svcfile, PATH); 1 says the run failed.
    expect(new SvcError('ERR_ENGINE_UNAVAILABLE', 'x').exitCode).toBe(2);
    expect(new SvcError('ERR_ENGINE_START_FAILED', 'x').exitCode).toBe(1);
  });

  it('keeps an SvcError as it is and wraps anything else as internal', () => {
    const own = new SvcError('ERR_USAGE', 'bad flag');
    expect(toSvcError(own)).toBe(own);
    const wrapped = toSvcError(new TypeError('boom'));
    expect(wrapped.code).toBe('ERR_INTERNAL');
    expect(wrapped.kind).toBe('system');
    expect(wrapped.message).toContain('boom');
    expect(toSvcError('plain').message).toContain('plain');
  });
});
