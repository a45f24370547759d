import { describe, expect, it } from 'vitest';

import { keepUntil, rfc3339 } from './keep-until.ts';

describe('keepUntil', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('takes a duration from now or an RFC 3339 time', () => {
    expect(rfc3339(keepUntil('2h', now))).toBe('2026-01-01T02:00:00Z');
    expect(rfc3339(keepUntil('2026-01-01T03:00:00+01:00', now))).toBe('2026-01-01T02:00:00Z');
  });

  it('refuses a past time and a word that is neither', () => {
    expect(() => keepUntil('2025-12-31T23:00:00Z', now)).toThrow(/already past/);
    expect(() => keepUntil('tomorrow', now)).toThrow(/neither a duration .* nor an RFC 3339 time/);
  });
});
