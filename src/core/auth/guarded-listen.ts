/**
 * Where an API listens and which token guards it, resolved in the one order every command with
 * an API uses (spec §5): the listen address (a `--loopback` switch and an explicit address are
 * refused together), the single token source, then the refusal of a non-loopback listen with no
 * token. Nothing listens until this has passed.
 */
import { SvcError } from '../errors.ts';
import { type ListenAddress, parseListenAddress } from '../http/listen-address.ts';
import {
  type ApiToken,
  requireTokenOffLoopback,
  resolveApiToken,
  type TokenInputs,
} from './token-source.ts';

export interface ListenRequest {
  /** The address flag's name (`--api-addr`, `--listen`) and what was given for it. */
  readonly flag: string;
  readonly given: string | undefined;
  readonly fallback: string;
  /** The command's loopback switch, when it has one. */
  readonly loopback?: { readonly on: boolean; readonly address: string };
  readonly tokens: TokenInputs;
}

export async function resolveGuardedListen(
  request: ListenRequest,
): Promise<{ address: ListenAddress; token: ApiToken | undefined }> {
  const { loopback } = request;
  if (loopback?.on === true && request.given !== undefined) {
    throw new SvcError('ERR_USAGE', `--loopback and ${request.flag} both given: pass one`);
  }
  const address = parseListenAddress(
    loopback?.on === true ? loopback.address : (request.given ?? request.fallback),
    request.flag,
  );
  const token = await resolveApiToken(request.tokens);
  requireTokenOffLoopback(address, token, loopback === undefined ? undefined : '--loopback');
  return { address, token };
}
