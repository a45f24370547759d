import { describe, expect, it } from 'vitest';

import { SvcError } from '../../../src/core/errors.ts';
import { rejectionOf, thrownBy } from './errors.ts';

const refused = new SvcError('ERR_USAGE', 'bad flag');
const other = new TypeError('not ours');

describe('thrownBy', () => {
  it('returns the SvcError thrown', () => {
    expect(
      thrownBy(() => {
        throw refused;
      }),
    ).toBe(refused);
  });

  it('rethrows any other error as it is', () => {
    expect(() =>
      thrownBy(() => {
        throw other;
      }),
    ).toThrow(other);
  });

  it('fails when nothing is thrown', () => {
    expect(() => thrownBy(() => 1)).toThrow('nothing was thrown');
  });

  it('fails on a promise, pointing at rejectionOf', async () => {
    const promise = Promise.reject(refused);
    expect(() => thrownBy(() => promise)).toThrow('use rejectionOf');
    await expect(promise).rejects.toBe(refused);
  });
});

describe('rejectionOf', () => {
  it('returns the SvcError rejected with', async () => {
    expect(await rejectionOf(Promise.reject(refused))).toBe(refused);
  });

  it('rethrows any other rejection as it is', async () => {
    await expect(rejectionOf(Promise.reject(other))).rejects.toBe(other);
  });

  it('fails when the promise resolves', async () => {
    await expect(rejectionOf(Promise.resolve(1))).rejects.toThrow('the promise resolved');
  });
});
