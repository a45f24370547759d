/**
 * What a caller's bearer token lets it do at the gateway (GUIDE D28). The gateway token uses the
 * fleet: models, the fleet's state and readings. Starting and stopping nodes is an operator's
 * act: when the fleet file names an operator token, only that token may, and it is accepted
 * wherever the gateway token is; when it names none, the gateway token may do everything.
 * Every compare is bearer.ts's (hashed, constant time); nothing here logs or keeps a token.
 */
import { bearerChecker } from '../../core/auth/bearer.ts';

/** `use`: models and fleet reads; `operate`: those, plus node start and stop. */
export type CallerRights = 'use' | 'operate';

export interface GatewayTokens {
  /** The gateway token; absent lets any caller use the fleet (a loopback gateway). */
  readonly token?: string;
  /** The operator token (`gateway.operatorTokenEnv`); absent gives every caller `operate`. */
  readonly operatorToken?: string;
}

/** A reader of an `Authorization` header's rights: undefined when the token is refused (401). */
export function rightsChecker(
  tokens: GatewayTokens,
): (header: string | undefined) => CallerRights | undefined {
  const gateway = bearerChecker(tokens.token);
  if (tokens.operatorToken === undefined) {
    return (header) => (gateway(header) ? 'operate' : undefined);
  }
  const operator = bearerChecker(tokens.operatorToken);
  if (tokens.token === undefined) {
    // No gateway token: anyone may use the fleet, only the operator token may operate it.
    return (header) => (operator(header) ? 'operate' : 'use');
  }
  // The gateway token first: it is what nearly every request carries.
  return (header) => (gateway(header) ? 'use' : operator(header) ? 'operate' : undefined);
}
