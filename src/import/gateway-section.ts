/**
 * The gateway an import writes (docs/import.md): on loopback at llama-swap's own address, so its
 * clients keep their base URL, with a token generated into the `.env` beside the fleet file so
 * `svc up`, `svc fleet` and `svc code` work in the output directory at once. The token is never
 * printed: the plan holds a placeholder that only the write replaces.
 */
import { randomBytes } from 'node:crypto';

export const ENV_FILE = '.env';
export const GATEWAY_TOKEN_ENV = 'GATEWAY_TOKEN';
export const GATEWAY_URL = 'http://127.0.0.1:8080';
export const TOKEN_PLACEHOLDER = '<generated when written>';

/** The planned text with the placeholder replaced by a fresh token (32 random bytes, hex). */
export function withToken(text: string, token = randomBytes(32).toString('hex')): string {
  return text.replace(TOKEN_PLACEHOLDER, token);
}
