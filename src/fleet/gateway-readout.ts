/**
 * What `svc fleet status` adds from the gateway the fleet file's `gateway` section names: how many
 * requests wait in its queue for each model, and each node's in-flight count and idle-stop time
 * (its `/v1/fleet`, docs/design.md D25, D26). The queue and idle stop live only in the gateway, so
 * a node never knows them; a gateway that does not answer leaves them out and says why. The token
 * is sent as a bearer header only, never printed.
 */
import { request } from 'undici';

import type { Fleet, FleetGateway, Variables } from '../core/fleet/file/fleet-file.ts';
import { isRecord } from '../core/fleet/file/fleet-node.ts';

/** How long status waits for the gateway: it is a local call, and status must stay quick. */
export const GATEWAY_TIMEOUT_MS = 2_000;

/** One node as the gateway reports it. */
export interface GatewayNode {
  readonly inFlight?: number;
  /** RFC 3339. */
  readonly idleStopAt?: string;
  /** Why a local node's next start would fail (its Svcfile, its model file). */
  readonly problems?: readonly string[];
}

export type GatewayAnswer =
  | {
      readonly ok: true;
      readonly name: string;
      readonly queued: Readonly<Record<string, number>>;
      readonly nodes: ReadonlyMap<string, GatewayNode>;
    }
  | {
      readonly ok: false;
      readonly name: string;
      readonly detail: string;
      /** Set when nothing answered at all (refused, timed out): where, and why. */
      readonly silent?: { readonly url: string; readonly reason: string };
    };

/** A GET with a bearer token: the status and the body's text, or a throw. */
export type GetText = (
  url: string,
  token: string | undefined,
  timeoutMs: number,
) => Promise<{ readonly status: number; readonly text: string }>;

export const getText: GetText = async (url, token, timeoutMs) => {
  const reply = await request(url, {
    signal: AbortSignal.timeout(timeoutMs),
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: reply.statusCode, text: await reply.body.text() };
};

/** The `/v1/fleet` URL of the gateway section's address (it may end in `/` or `/v1`). */
export function fleetUrl(gateway: FleetGateway): string {
  const base = gateway.url.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${base}/v1/fleet`;
}

/** The gateway's `/v1/fleet` body, read for what status shows; anything else in it is ignored. */
export function gatewayAnswerOf(name: string, body: unknown): GatewayAnswer {
  if (!isRecord(body) || !Array.isArray(body['nodes'])) {
    return { ok: false, name, detail: 'its /v1/fleet reply is not a fleet' };
  }
  const queued: Record<string, number> = {};
  if (isRecord(body['queued'])) {
    for (const [model, count] of Object.entries(body['queued'])) {
      if (typeof count === 'number' && count > 0) {
        queued[model] = count;
      }
    }
  }
  const nodes = new Map<string, GatewayNode>();
  for (const entry of body['nodes'] as unknown[]) {
    if (!isRecord(entry) || typeof entry['name'] !== 'string') {
      continue;
    }
    const { inFlight, idleStopAt, problems } = entry;
    const texts = Array.isArray(problems)
      ? problems.filter((problem): problem is string => typeof problem === 'string')
      : [];
    nodes.set(entry['name'], {
      ...(typeof inFlight === 'number' ? { inFlight } : {}),
      ...(typeof idleStopAt === 'string' ? { idleStopAt } : {}),
      ...(texts.length === 0 ? {} : { problems: texts }),
    });
  }
  return { ok: true, name, queued, nodes };
}

/**
 * Asks the fleet's gateway, or undefined when the file names none. The token comes from the
 * section's variable, in the environment or the `.env` beside the fleet file.
 */
export async function askGateway(
  fleet: Pick<Fleet, 'gateway'>,
  variables: readonly Variables[],
  get: GetText = getText,
): Promise<GatewayAnswer | undefined> {
  const gateway = fleet.gateway;
  if (gateway === undefined) {
    return undefined;
  }
  const token = variables
    .map((layer) => layer[gateway.tokenEnv])
    .find((value) => value !== undefined && value !== '');
  const url = fleetUrl(gateway);
  let reply;
  try {
    reply = await get(url, token, GATEWAY_TIMEOUT_MS);
  } catch (error) {
    const reason = (error as Error).message;
    return {
      ok: false,
      name: gateway.name,
      detail: `GET ${url}: ${reason}`,
      silent: { url: gateway.url, reason },
    };
  }
  if (reply.status !== 200) {
    const hint = reply.status === 401 ? ` (it refused ${gateway.tokenEnv})` : '';
    return {
      ok: false,
      name: gateway.name,
      detail: `GET ${url} answered HTTP ${reply.status}${hint}`,
    };
  }
  try {
    return gatewayAnswerOf(gateway.name, JSON.parse(reply.text));
  } catch {
    return {
      ok: false,
      name: gateway.name,
      detail: `GET ${url} answered something other than JSON`,
    };
  }
}
