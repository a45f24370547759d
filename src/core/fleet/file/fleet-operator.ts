/**
 * The fleet file's `gateway.operatorTokenEnv` (docs/design.md D28): the variable holding the token
 * that may start and stop nodes through the gateway. Pure: the key's value and a variable lookup
 * in, the variable's name and value (or a problem naming the key) out. The value never appears in a
 * problem.
 */

/** The token that may start and stop nodes through the gateway. */
export interface FleetOperator {
  readonly tokenEnv: string;
  /** Absent only when the fleet was read `lenient` and the variable is set nowhere. */
  readonly token?: string;
}

export interface OperatorSources {
  /** A variable's non-empty value: the environment, then the `.env` beside the fleet file. */
  readonly lookup: (name: string) => string | undefined;
  /**
   * Whether an unset variable is left for the caller to judge: commands that need only the
   * gateway's url and token (`svc code`) never need the operator's (docs/design.md D24).
   */
  readonly lenient: boolean;
  readonly problem: (message: string) => void;
}

/** Resolved like a node's `tokenEnv`: set nowhere is a problem unless read leniently. */
export function operatorOf(name: unknown, sources: OperatorSources): FleetOperator | undefined {
  if (name === undefined) {
    return undefined;
  }
  if (typeof name !== 'string' || name === '') {
    sources.problem('gateway.operatorTokenEnv must name an environment variable');
    return undefined;
  }
  const token = sources.lookup(name);
  if (token === undefined && !sources.lenient) {
    sources.problem(
      `${name} is not set (gateway.operatorTokenEnv): export it, or put it in the .env beside the fleet file`,
    );
  }
  return token === undefined ? { tokenEnv: name } : { tokenEnv: name, token };
}
