/**
 * Bearer-token check for the control API and the gateway (spec §5 rules 1 and 4). Both sides are
 * hashed before a constant-time compare, so neither the token's length nor its content leaks
 * through timing. Nothing here logs: a wrong token offered by a caller is never written anywhere.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * A checker for `Authorization` header values; with no token configured every request passes.
 * The scheme name is matched case-insensitively (RFC 9110 §11.1: `bearer x` is `Bearer x`).
 */
export function bearerChecker(token: string | undefined): (header: string | undefined) => boolean {
  if (token === undefined) {
    return () => true;
  }
  const expected = digest(token);
  return (header) => {
    const credentials = header === undefined ? undefined : /^bearer +(.*)$/i.exec(header)?.[1];
    return credentials !== undefined && timingSafeEqual(digest(credentials), expected);
  };
}
