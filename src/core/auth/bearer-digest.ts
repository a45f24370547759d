/**
 * The credentials of an `Authorization: Bearer` header, hashed once (SHA-256), for checks that
 * compare one presented token against several (docs/design.md D29): each compare is
 * `timingSafeEqual` over digests, so neither a token's length nor its content leaks through
 * timing, and a lookup by digest reveals nothing of a token not already presented.
 */
import { createHash } from 'node:crypto';

export function tokenDigest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The header's token's digest; undefined when there is no bearer token at all. */
export function bearerDigest(header: string | undefined): Buffer | undefined {
  // RFC 9110 §11.1: the scheme name is case-insensitive.
  const credentials = header === undefined ? undefined : /^bearer +(.*)$/i.exec(header)?.[1];
  return credentials === undefined ? undefined : tokenDigest(credentials);
}
