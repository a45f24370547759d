import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { closestName, editDistance } from './closest-name.ts';

describe('editDistance', () => {
  it.each([
    ['wake', 'wake', 0],
    ['wakee', 'wake', 1],
    ['fille', 'file', 1],
    ['tokenENV', 'tokenEnv', 0],
    ['lopback', 'loopback', 1],
    ['laoopback', 'loopback', 1],
    ['hsot', 'host', 1],
    ['', 'abc', 3],
  ])('%s → %s is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });

  it('is symmetric and zero only for case-insensitively equal words', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, b) === 0).toBe(a.toLowerCase() === b.toLowerCase());
      }),
      { numRuns: 300 },
    );
  });
});

describe('closestName', () => {
  const flags = ['loopback', 'listen', 'fleet', 'api-token', 'api-token-file', 'wake-timeout'];

  it('suggests the known name a typo came from', () => {
    expect(closestName('lopback', flags)).toBe('loopback');
    expect(closestName('api-tokn-file', flags)).toBe('api-token-file');
    expect(closestName('wake-timout', flags)).toBe('wake-timeout');
    expect(closestName('wake', flags)).toBe('wake-timeout');
    expect(closestName('token', ['name', 'tokenEnv'])).toBe('tokenEnv');
  });

  it('suggests nothing for a word far from every name', () => {
    expect(closestName('verbose', flags)).toBeUndefined();
    expect(closestName('x', flags)).toBeUndefined();
  });
});
