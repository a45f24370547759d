/**
 * What `svc fleet usage` and `svc fleet activity` read from the gateway the fleet file names
 * (docs/design.md D29): one GET of a `/v1/fleet/…` path with a bearer token, its JSON body, or a
 * one-line error saying which gateway did not answer and why. The token is the operator's where
 * the file names one and it is set (it sees every caller), else the gateway section's: a team
 * member who holds a caller token of their own puts it in that variable. A token is only ever
 * sent as a header, never printed.
 */
import { SvcError } from '../core/errors.ts';
import type { Fleet, FleetGateway, Variables } from '../core/fleet/file/fleet-file.ts';
import { fleetUrl, GATEWAY_TIMEOUT_MS, type GetText, getText } from './gateway-readout.ts';

/** A variable's first non-empty value over the layers (the environment, then the `.env`). */
export function variableOf(variables: readonly Variables[], name: string): string | undefined {
  return variables.map((layer) => layer[name]).find((value) => value !== undefined && value !== '');
}

/** The operator token where the file names one and it is set, else the gateway token. */
function tokenFor(
  fleet: Pick<Fleet, 'operator'>,
  gateway: FleetGateway,
  variables: readonly Variables[],
) {
  const operator = fleet.operator;
  const own =
    operator === undefined
      ? undefined
      : (operator.token ?? variableOf(variables, operator.tokenEnv));
  return own ?? variableOf(variables, gateway.tokenEnv);
}

/** The gateway's JSON reply to `GET /v1/fleet<suffix>`, or an SvcError in one line. */
export async function readGateway(
  fleet: Pick<Fleet, 'gateway' | 'operator' | 'path'>,
  variables: readonly Variables[],
  suffix: string,
  get: GetText = getText,
): Promise<unknown> {
  const gateway = fleet.gateway;
  if (gateway === undefined) {
    throw new SvcError(
      'ERR_FLEET',
      `${fleet.path} names no gateway: usage and activity are kept by the gateway (add a gateway section with its url)`,
    );
  }
  const url = `${fleetUrl(gateway)}${suffix}`;
  let reply;
  try {
    reply = await get(url, tokenFor(fleet, gateway, variables), GATEWAY_TIMEOUT_MS);
  } catch (error) {
    throw new SvcError(
      'ERR_UPSTREAM',
      `no gateway answers at ${gateway.url} (${gateway.name}): GET ${url}: ${(error as Error).message}`,
    );
  }
  if (reply.status !== 200) {
    throw new SvcError(
      'ERR_UPSTREAM',
      `GET ${url} answered HTTP ${reply.status}${errorMessageOf(reply.text)}`,
    );
  }
  try {
    return JSON.parse(reply.text) as unknown;
  } catch {
    throw new SvcError('ERR_UPSTREAM', `GET ${url} answered something other than JSON`);
  }
}

/** The OpenAI-style error's message, when the body has one: `: <message>`. */
function errorMessageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    const message = body.error?.message;
    return typeof message === 'string' ? `: ${message}` : '';
  } catch {
    return '';
  }
}
