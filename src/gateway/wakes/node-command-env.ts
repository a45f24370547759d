/**
 * The environment a node's wake or sleep command runs with (docs/design.md D26): the gateway's own,
 * minus every variable the fleet file names for a token or key and minus `SVC_API_TOKEN`, plus
 * `SVC_NODE=<name>`. Pure: the environment, the fleet and the secrets in, a new environment out.
 *
 * A variable is also dropped when its value is one of the secrets themselves, whatever its name:
 * the gateway token may come from a file or a flag and still sit in some other exported variable,
 * and a command that logs its environment must never be able to show it.
 */
import type { Fleet, Variables } from '../../core/fleet/file/fleet-file.ts';

/** The variable the gateway's own token may come from (spec §5), never handed to a command. */
export const API_TOKEN_VARIABLE = 'SVC_API_TOKEN';
/** Names the node a command runs for, so one script can serve several nodes. */
export const NODE_VARIABLE = 'SVC_NODE';

/** What a command may not see: variables by name, and any variable holding one of the values. */
export interface HiddenSecrets {
  readonly variables: readonly string[];
  readonly values: readonly string[];
}

/**
 * Every token and key variable the fleet file names, with the values it resolved: each node's
 * `tokenEnv` and `engineTokenEnv`, the file's `apiKeyEnv`, `gateway.tokenEnv` (the token agents
 * present) and `gateway.operatorTokenEnv`; `gatewayToken` is the token the gateway checks, from
 * whichever source gave it.
 */
export function fleetSecrets(fleet: Fleet, gatewayToken?: string): HiddenSecrets {
  const variables = new Set<string>([API_TOKEN_VARIABLE]);
  const values = new Set<string>();
  const add = (name: string | undefined, value: string | undefined): void => {
    if (name !== undefined && name !== '') {
      variables.add(name);
    }
    if (value !== undefined && value !== '') {
      values.add(value);
    }
  };
  for (const node of fleet.nodes) {
    add(node.engineTokenEnv, node.engineKey);
    if (node.kind === 'daemon') {
      add(node.tokenEnv, node.token);
    }
  }
  add(fleet.apiKeyEnv, undefined);
  add(fleet.gateway?.tokenEnv, undefined);
  add(fleet.operator?.tokenEnv, fleet.operator?.token);
  add(undefined, gatewayToken);
  return { variables: [...variables], values: [...values] };
}

/** The command's environment: `env` without the hidden secrets, with `SVC_NODE` set. */
export function commandEnvironment(
  env: Variables,
  node: string,
  hidden: HiddenSecrets,
): Record<string, string> {
  const names = new Set([API_TOKEN_VARIABLE, ...hidden.variables]);
  const values = new Set(hidden.values.filter((value) => value !== ''));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || names.has(name) || values.has(value)) {
      continue;
    }
    out[name] = value;
  }
  out[NODE_VARIABLE] = node;
  return out;
}
