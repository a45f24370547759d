/** Fleet-file nodes as the unit tests build them; `extra` sets what a test cares about. */
import type {
  DaemonNode,
  FleetNode,
  LocalNode,
  RemoteNode,
  UpstreamNode,
} from '../../../src/core/fleet/file/fleet-file.ts';

export function daemonNode(
  name: string,
  extra: Partial<Omit<DaemonNode, 'kind'>> = {},
): DaemonNode {
  return {
    name,
    kind: 'daemon',
    host: '127.0.0.1',
    port: 4242,
    wake: 'on',
    ownWake: false,
    ...extra,
  };
}

/** A remote environment's node: it has no host, port or token to set. */
export function remoteNode(
  name: string,
  extra: Partial<Omit<RemoteNode, 'kind'>> = {},
): RemoteNode {
  return { name, kind: 'remote', wake: 'on', ownWake: false, ...extra };
}

/** The node as a daemon node: a parsed node a test expects to be one, else the test fails. */
export function asDaemon(node: FleetNode | undefined): DaemonNode {
  if (node?.kind !== 'daemon') {
    throw new Error(`expected a daemon node, got ${JSON.stringify(node)}`);
  }
  return node;
}

/** The node as a remote node, likewise. */
export function asRemote(node: FleetNode | undefined): RemoteNode {
  if (node?.kind !== 'remote') {
    throw new Error(`expected a remote node, got ${JSON.stringify(node)}`);
  }
  return node;
}

/** A local node (docs/design.md D27): the gateway runs its engine from `file`. */
export function localNode(name: string, extra: Partial<Omit<LocalNode, 'kind'>> = {}): LocalNode {
  return { name, kind: 'local', file: `${name}/Svcfile`, wake: 'on', ownWake: false, ...extra };
}

/** The node as a local node, likewise. */
export function asLocal(node: FleetNode | undefined): LocalNode {
  if (node?.kind !== 'local') {
    throw new Error(`expected a local node, got ${JSON.stringify(node)}`);
  }
  return node;
}

/** An upstream node (docs/design.md D30): a base URL serving `models`, never started or stopped. */
export function upstreamNode(
  name: string,
  extra: Partial<Omit<UpstreamNode, 'kind'>> = {},
): UpstreamNode {
  return {
    name,
    kind: 'upstream',
    url: 'http://127.0.0.1:9/v1',
    models: { hosted: 'hosted' },
    timeoutMs: 600_000,
    wake: 'off',
    ownWake: false,
    ...extra,
  };
}
