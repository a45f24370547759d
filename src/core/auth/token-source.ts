/**
 * The API token that guards the control API and the gateway (spec §5). It comes from exactly one
 * of three places; two at once is refused rather than ranked, so nobody runs with a token they did
 * not mean (spec §5 rule 2). Errors name the source, never the value.
 */
import { readFile } from 'node:fs/promises';

import { SvcError } from '../errors.ts';
import { formatListenAddress, isLoopbackHost, type ListenAddress } from '../http/listen-address.ts';

export type TokenSourceName = '--api-token-file' | 'SVC_API_TOKEN' | '--api-token';

export interface TokenInputs {
  /** `--api-token-file <path>` */
  readonly file?: string | undefined;
  /** `SVC_API_TOKEN`; under `serve --api` the caller folds in the `.env` beside the Svcfile. */
  readonly env?: string | undefined;
  /** `--api-token <value>` */
  readonly flag?: string | undefined;
}

export interface ApiToken {
  readonly value: string;
  readonly source: TokenSourceName;
}

/** The three ways, in the words every refusal uses (spec §5 rule 3). */
export const TOKEN_WAYS =
  'pass --api-token-file <path>, set SVC_API_TOKEN, or pass --api-token <value>';

/**
 * Decides which source is in use without reading anything. An empty `SVC_API_TOKEN` counts as
 * unset (shells leave variables empty as often as they unset them); an empty flag does not.
 */
export function pickTokenSource(inputs: TokenInputs): TokenSourceName | undefined {
  const given: TokenSourceName[] = [];
  if (inputs.file !== undefined) {
    given.push('--api-token-file');
  }
  if (inputs.env !== undefined && inputs.env !== '') {
    given.push('SVC_API_TOKEN');
  }
  if (inputs.flag !== undefined) {
    given.push('--api-token');
  }
  if (given.length > 1) {
    throw new SvcError(
      'ERR_TWO_TOKEN_SOURCES',
      `${given.join(' and ')} both give an API token: pass exactly one`,
    );
  }
  return given[0];
}

/** Resolves the token, reading the file when that is the source. Undefined: no token at all. */
export async function resolveApiToken(
  inputs: TokenInputs,
  read: (path: string) => Promise<string> = (path) => readFile(path, 'utf8'),
): Promise<ApiToken | undefined> {
  const source = pickTokenSource(inputs);
  switch (source) {
    case undefined:
      return undefined;
    case '--api-token-file': {
      const path = inputs.file ?? '';
      let contents: string;
      try {
        contents = await read(path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'read failed';
        throw new SvcError('ERR_TOKEN_FILE', `--api-token-file ${path}: cannot read it (${code})`, {
          cause: error,
        });
      }
      const value = contents.trim();
      if (value === '') {
        throw new SvcError('ERR_TOKEN_FILE', `--api-token-file ${path}: the file is empty`);
      }
      return { value: checkTokenValue(value, `--api-token-file ${path}`), source };
    }
    case 'SVC_API_TOKEN':
      return { value: checkTokenValue(inputs.env ?? '', source), source };
    case '--api-token':
      return { value: checkTokenValue(inputs.flag ?? '', source), source };
  }
}

/**
 * A token must survive the trip through an `Authorization: Bearer` header: no surrounding
 * whitespace (HTTP trims it away) and no control characters (HTTP refuses them).
 */
function checkTokenValue(value: string, where: string): string {
  if (value.trim() === '') {
    throw new SvcError('ERR_TOKEN_INVALID', `${where}: the API token is empty`);
  }
  if (value !== value.trim()) {
    throw new SvcError(
      'ERR_TOKEN_INVALID',
      `${where}: the API token has leading or trailing whitespace`,
    );
  }
  // eslint-disable-next-line no-control-regex -- control characters are exactly what we refuse
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new SvcError('ERR_TOKEN_INVALID', `${where}: the API token contains control characters`);
  }
  return value;
}

/**
 * spec §5 rule 3: a listener reachable from other machines must have a token. `loopbackHint`
 * names the command's own loopback switch (for example `--loopback`), when it has one.
 */
export function requireTokenOffLoopback(
  address: ListenAddress,
  token: ApiToken | undefined,
  loopbackHint?: string,
): void {
  if (token !== undefined || isLoopbackHost(address.host)) {
    return;
  }
  const where = formatListenAddress(address);
  const hint =
    loopbackHint === undefined ? '' : `, or bind loopback with ${loopbackHint}, which needs none`;
  throw new SvcError(
    'ERR_NO_TOKEN_NON_LOOPBACK',
    `refusing to listen on non-loopback address ${where} without an API token: ${TOKEN_WAYS}${hint}`,
  );
}
