/**
 * Who a request's bearer token is, and what it may do at the gateway (docs/design.md D28,
 * docs/design.md D29). The gateway token uses the fleet: models, the fleet's state and readings.
 * Starting and stopping nodes is an operator's act: when the fleet file names an operator token,
 * only that token may, and it is accepted wherever the gateway token is; when it names none, the
 * gateway token may do everything. The fleet file's `callers` add tokens of their own, each limited
 * to its models, its wake right and its share; the gateway and operator tokens stay callers
 * `gateway` and `operator` with every right.
 *
 * The presented token is hashed once (bearer-digest.ts); the gateway's own tokens are compared
 * with `timingSafeEqual`, a caller's is found by its digest and confirmed the same way. Nothing
 * here logs or keeps a token: a caller's was hashed when the fleet file was read.
 */
import { timingSafeEqual } from 'node:crypto';

import { bearerDigest, tokenDigest } from '../../core/auth/bearer-digest.ts';
import { SvcError } from '../../core/errors.ts';
import { type ModelMatcher, modelMatcher } from '../../core/fleet/file/caller-models.ts';
import type { CallerPriority, FleetCaller } from '../../core/fleet/file/fleet-file.ts';
import { callerShare } from '../../core/fleet/scheduling/requests/fair-lanes.ts';
import type { CallerShare } from '../../core/fleet/scheduling/types.ts';

/** `use`: models and fleet reads; `operate`: those, plus node start and stop. */
export type CallerRights = 'use' | 'operate';

/** One request's caller: its name in logs, usage and activity, and its rights. */
export interface Caller {
  readonly name: string;
  readonly rights: CallerRights;
  /** Whether its `models` limit it (docs/design.md D29): lists are filtered only then. */
  readonly limited: boolean;
  readonly allows: ModelMatcher;
  /** May its requests wake a node or boot a machine. */
  readonly wake: boolean;
  readonly upstreams: boolean;
  readonly concurrency?: number;
  readonly priority: CallerPriority;
  /**
   * Its share of the queue, as the scheduler takes it (docs/design.md D29); absent when the fleet
   * file has no `callers`, so the queue stays first in, first out.
   */
  readonly share?: CallerShare;
}

export interface GatewayTokens {
  /** The gateway token; absent lets any caller use the fleet (a loopback gateway). */
  readonly token?: string;
  /** The operator token (`gateway.operatorTokenEnv`); absent gives every caller `operate`. */
  readonly operatorToken?: string;
  /** The fleet file's `callers` (docs/design.md D29), their tokens already hashed. */
  readonly callers?: readonly FleetCaller[];
}

const everything = modelMatcher(undefined);

function ownCaller(name: 'gateway' | 'operator', rights: CallerRights, fair: boolean): Caller {
  return {
    name,
    rights,
    limited: false,
    allows: everything,
    wake: true,
    upstreams: true,
    priority: 'normal',
    ...(fair ? { share: callerShare({ name, priority: 'normal' }) } : {}),
  };
}

function fileCaller(caller: FleetCaller): Caller {
  return {
    share: callerShare(caller),
    name: caller.name,
    rights: 'use',
    limited: caller.models !== undefined,
    allows: modelMatcher(caller.models),
    wake: caller.wake,
    upstreams: caller.upstreams,
    ...(caller.concurrency === undefined ? {} : { concurrency: caller.concurrency }),
    priority: caller.priority,
  };
}

interface Known {
  readonly digest: Buffer;
  readonly caller: Caller;
}

/** The callers of the fleet file by their token's digest; one that reuses a gateway token is refused. */
function fileCallers(tokens: GatewayTokens): Map<string, Known> {
  const own = [tokens.token, tokens.operatorToken]
    .filter((token) => token !== undefined)
    .map((token) => tokenDigest(token).toString('hex'));
  const byDigest = new Map<string, Known>();
  for (const caller of tokens.callers ?? []) {
    if (caller.tokenSha256 === undefined) {
      continue;
    }
    if (own.includes(caller.tokenSha256)) {
      throw new SvcError(
        'ERR_FLEET',
        `caller "${caller.name}" holds the gateway's own token (the gateway or operator token): give it a token of its own`,
      );
    }
    const digest = Buffer.from(caller.tokenSha256, 'hex');
    byDigest.set(caller.tokenSha256, { digest, caller: fileCaller(caller) });
  }
  return byDigest;
}

/** A reader of an `Authorization` header's caller: undefined when the token is refused (401). */
export function callerChecker(
  tokens: GatewayTokens,
): (header: string | undefined) => Caller | undefined {
  const gatewayDigest = tokens.token === undefined ? undefined : tokenDigest(tokens.token);
  const operatorDigest =
    tokens.operatorToken === undefined ? undefined : tokenDigest(tokens.operatorToken);
  // docs/design.md D28: without an operator token the gateway token may do everything.
  const fair = tokens.callers !== undefined;
  const gateway = ownCaller('gateway', operatorDigest === undefined ? 'operate' : 'use', fair);
  const operator = ownCaller('operator', 'operate', fair);
  const callers = fileCallers(tokens);
  // Without a gateway token anyone uses the fleet as `gateway`, unless its token names a caller.
  const anonymous = gatewayDigest === undefined ? gateway : undefined;
  return (header) => {
    const presented = bearerDigest(header);
    if (presented === undefined) {
      return anonymous;
    }
    // The gateway token first: it is what nearly every request carries without callers.
    if (gatewayDigest !== undefined && timingSafeEqual(presented, gatewayDigest)) {
      return gateway;
    }
    if (operatorDigest !== undefined && timingSafeEqual(presented, operatorDigest)) {
      return operator;
    }
    if (callers.size > 0) {
      const known = callers.get(presented.toString('hex'));
      if (known !== undefined && timingSafeEqual(presented, known.digest)) {
        return known.caller;
      }
    }
    return anonymous;
  };
}

/** The rights alone (docs/design.md D28), for what needs no more of the caller. */
export function rightsChecker(
  tokens: GatewayTokens,
): (header: string | undefined) => CallerRights | undefined {
  const callerOf = callerChecker(tokens);
  return (header) => callerOf(header)?.rights;
}
