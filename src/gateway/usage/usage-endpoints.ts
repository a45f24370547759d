/**
 * `GET /v1/fleet/usage` and `GET /v1/fleet/activity` (docs/design.md D29). Usage: a token with
 * operator rights sees every caller, any other only itself. Activity is the operator's alone
 * (docs/design.md D28 rights: the operator token, or the gateway token when none is set).
 */
import { GatewayError } from '../../core/http/gateway-error.ts';
import type { Caller } from '../callers/caller-rights.ts';
import { ACTIVITY_DEFAULT_LIMIT, ACTIVITY_KEPT } from './activity-ring.ts';
import type { CallerUsage } from './caller-usage.ts';

function limitOf(query: string): number {
  const raw = new URLSearchParams(query).get('limit');
  if (raw === null) {
    return ACTIVITY_DEFAULT_LIMIT;
  }
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > ACTIVITY_KEPT) {
    throw new GatewayError(
      400,
      `limit must be a whole number from 1 to ${ACTIVITY_KEPT}, not "${raw}"`,
    );
  }
  return limit;
}

/** The reply body for one of the two paths, or undefined for any other request. */
export function usageEndpoint(
  usage: CallerUsage,
  request: { readonly method: string | undefined; readonly path: string; readonly query: string },
  caller: Caller,
): string | undefined {
  if (request.method !== 'GET') {
    return undefined;
  }
  if (request.path === '/v1/fleet/usage') {
    return usage.reply(caller.rights === 'operate' ? undefined : caller.name);
  }
  if (request.path === '/v1/fleet/activity') {
    if (caller.rights !== 'operate') {
      throw new GatewayError(403, 'the activity of every caller is for the operator token only', {
        code: 'insufficient_permissions',
      });
    }
    return JSON.stringify({ requests: usage.activity.latest(limitOf(request.query)) });
  }
  return undefined;
}
