/**
 * A registered environment's control plane, ready to call: its registry entry resolved with the
 * overrides (registry.ts) and AWS's signer for its region (signer.ts). One place for `svc remote`
 * and the fleet's remote driver, so both reach an environment the same way.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { Clock } from '../clock.ts';
import { closestName } from '../closest-name.ts';
import { SvcError } from '../errors.ts';
import { ControlPlane } from './control-plane.ts';
import { readRegistryEntry, resolveRemote } from './registry.ts';
import { awsSigner } from './signer.ts';
import { signedTransport, type Transport } from './transport.ts';

type Env = Readonly<Record<string, string | undefined>>;

export interface ConnectDeps {
  readonly transportFor?: (region: string) => Transport;
  readonly now?: Clock;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The names registered under `<config dir>/remotes`, sorted. */
export async function registeredNames(configDir: string): Promise<string[]> {
  try {
    const entries = await readdir(join(configDir, 'remotes'), { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

export async function connectRemote(
  configDir: string,
  name: string,
  env: Env,
  deps: ConnectDeps = {},
): Promise<ControlPlane> {
  const entry = await readRegistryEntry(configDir, name);
  if (entry === undefined && env['SVC_REMOTE_START_URL'] === undefined) {
    const near = closestName(name, await registeredNames(configDir));
    if (near !== undefined) {
      throw new SvcError(
        'ERR_FLEET',
        `remote environment "${name}" is not registered: did you mean "${near}"? (svc remote ls)`,
      );
    }
  }
  const remote = resolveRemote(name, entry, env);
  const transportFor =
    deps.transportFor ?? ((region: string) => signedTransport(awsSigner(region)));
  return new ControlPlane(remote, {
    transport: transportFor(remote.region),
    now: deps.now ?? (() => Date.now()),
    sleep: deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
  });
}
