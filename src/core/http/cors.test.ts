/**
 * CORS (docs/design.md D22): any origin by default, the fleet file's list restricts, preflights
 * allow the SDK's headers.
 */
import { describe, expect, it } from 'vitest';

import { corsHeaders, corsOrigins, preflightHeaders } from './cors.ts';

describe('corsHeaders', () => {
  it('allows any origin by default and adds nothing without Origin', () => {
    expect(corsHeaders('https://app.example', undefined)).toMatchObject({
      'access-control-allow-origin': '*',
    });
    expect(corsHeaders(undefined, undefined)).toEqual({});
  });

  it('echoes a listed origin with Vary, and refuses one not listed', () => {
    const policy = ['https://app.example'];
    expect(corsHeaders('https://app.example', policy)).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      vary: 'Origin',
    });
    expect(corsHeaders('https://evil.example', policy)).toEqual({});
  });
});

describe('preflightHeaders', () => {
  it('allows POST, authorization, content-type and whatever else was asked for, with a max age', () => {
    const headers = preflightHeaders(
      'https://app.example',
      'X-Stainless-Os, authorization',
      undefined,
    );
    expect(headers['access-control-allow-methods']).toContain('POST');
    expect(headers['access-control-allow-headers']?.split(', ')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'x-stainless-os']),
    );
    expect(Number(headers['access-control-max-age'])).toBeGreaterThan(0);
  });

  it('says nothing to an origin the list leaves out', () => {
    expect(preflightHeaders('https://evil.example', undefined, ['https://app.example'])).toEqual(
      {},
    );
  });
});

describe('corsOrigins', () => {
  it('takes a list of origins or *', () => {
    const problems: string[] = [];
    expect(
      corsOrigins(['https://a.example', 'http://b:3000', '*'], (p) => problems.push(p)),
    ).toEqual(['https://a.example', 'http://b:3000', '*']);
    expect(problems).toEqual([]);
  });

  it.each([['https://a.example'], [['https://a.example/path']], [[3]], [['a.example']]])(
    'refuses %j, naming the key',
    (raw) => {
      const problems: string[] = [];
      expect(corsOrigins(raw, (p) => problems.push(p))).toBeUndefined();
      expect(problems[0]).toMatch(/^gateway\.cors must list origins/);
    },
  );
});
