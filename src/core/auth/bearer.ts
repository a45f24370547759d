/**
 * Bearer-token check for the control API and the gateway (spec §5 rules 1 and 4). Both sides are
 * hashed before a constant-time compare, so neither the token's length nor its content leaks
 * through timing. Nothing here logs: a wrong token offered by a caller is never written anywhere.
 */
import { timingSafeEqual } from 'node:crypto';

import { bearerDigest, tokenDigest } from './bearer-digest.ts';

/**
 * A checker for `Authorization` header values; with no token configured every request passes.
 * The scheme name is matched case-insensitively (RFC 9110 §11.1: `bearer x` is `Bearer x`).
 */
export function bearerChecker(token: string | undefined): (header: string | undefined) => boolean {
  if (token === undefined) {
    return () => true;
  }
  const expected = tokenDigest(token);
  return (header) => {
    const presented = bearerDigest(header);
    return presented !== undefined && timingSafeEqual(presented, expected);
  };
}
