/**
 * What the scheduler does not decide about a node (docs/design.md D33: it alone places, wakes,
 * swaps and refuses): how this gateway reaches a running node's engine, pure. A loopback-only
 * engine without an engine override is never reachable (docs/design.md D15); the scheduler's view
 * of it then serves nothing and carries `loopbackText` as its reason.
 */
import type { GatewayErrorCode } from '../../http/gateway-error.ts';
import type { FleetNode } from '../file/fleet-file.ts';
import type { NodeSnapshot } from '../state/node-snapshot.ts';

export interface EngineTarget {
  readonly node: FleetNode;
  /** `http://host:port/v1`-style base every OpenAI path is appended to (without its /v1). */
  readonly baseUrl: string;
  /** The base split once, so the proxy parses no URL per request. */
  readonly origin: string;
  readonly pathPrefix: string;
  /** The key to present to the engine, when it is gated. */
  readonly key?: string;
}

/** Why a running node's engine cannot be used, with the status the refusal gets. */
export interface Unusable {
  readonly unusable: string;
  readonly status: number;
  readonly code: GatewayErrorCode;
}

/** Whether a running node's engine answers to `model` (served name first, else model id). */
export function serves(snapshot: NodeSnapshot, model: string): boolean {
  return (
    snapshot.ok &&
    snapshot.status.state === 'running' &&
    (snapshot.status.servedName === model || snapshot.status.model === model)
  );
}

/**
 * Whether a running node's engine answers only on its own machine and the node names no engine
 * host to reach it by (docs/design.md D15): no request can be sent there.
 */
export function loopbackOnly(snapshot: NodeSnapshot & { ok: true }): boolean {
  // A local node's engine runs beside the gateway (docs/design.md D27): its loopback is the
  // gateway's own.
  return (
    snapshot.node.kind !== 'local' &&
    snapshot.status.engine?.loopbackOnly === true &&
    snapshot.node.engine?.host === undefined
  );
}

/** Why a loopback-only engine cannot be used, and what to change (docs/design.md D15, D19). */
export function loopbackText(node: Pick<FleetNode, 'name'>, fleetPath: string): string {
  return `node "${node.name}" has its engine bound to loopback, so it answers only on that machine: bind the engine to a reachable address (llama.cpp's --host 0.0.0.0), or give this node an engine host in ${fleetPath}`;
}

/** The engine's base URL as this gateway reaches it, or why it cannot. */
export function engineTarget(
  snapshot: NodeSnapshot & { ok: true },
  fleetPath: string,
): EngineTarget | Unusable {
  const { node, status } = snapshot;
  if (node.kind === 'upstream') {
    // docs/design.md D30: its base URL is where OpenAI's /v1 ends; its key is sent by the relay.
    const url = new URL(node.url);
    return {
      node,
      baseUrl: node.url,
      origin: url.origin,
      pathPrefix: url.pathname.replace(/\/+$/, ''),
    };
  }
  const engine = status.engine;
  const override = node.engine;
  if (loopbackOnly(snapshot)) {
    // docs/design.md D19: a loopback-only match is a 502 naming the node; retrying cannot help.
    return { status: 502, code: 'loopback_only', unusable: loopbackText(node, fleetPath) };
  }
  const port = override?.port ?? engine?.port;
  // spec §2.2: a remote environment publishes the address its engine is reached by; a daemon's
  // reported host is only its bind address (0.0.0.0), so the node's own host stands for it; a
  // local node's engine runs beside the gateway, on loopback (docs/design.md D27).
  const host =
    override?.host ??
    (node.kind === 'remote' ? engine?.host : node.kind === 'local' ? '127.0.0.1' : node.host);
  const hasScheme = host !== undefined && /^https?:\/\//.test(host);
  if (port === undefined && !hasScheme) {
    return {
      status: 502,
      code: 'upstream_error',
      unusable: `node "${node.name}" reports no engine port: give this node an engine port in ${fleetPath}`,
    };
  }
  if (host === undefined) {
    return {
      status: 502,
      code: 'upstream_error',
      unusable: `node "${node.name}" publishes no engine address: give this node an engine host in ${fleetPath}`,
    };
  }
  let origin: string;
  if (hasScheme) {
    // A full origin as the operator wrote it: only its own engine.port is added, when it names none
    // (a daemon-reported port is the engine's, not the port of whatever fronts that origin).
    const url = new URL(host);
    if (url.port === '' && override?.port !== undefined) {
      url.port = String(override.port);
    }
    origin = url.origin;
  } else {
    origin = `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port ?? ''}`;
  }
  const path = (override?.path ?? engine?.path ?? '/v1').replace(/\/+$/, '');
  if (engine?.requiresKey === true && node.engineKey === undefined) {
    return {
      status: 502,
      code: 'upstream_error',
      unusable: `node "${node.name}" has a gated engine but names no engine key: add engineTokenEnv: <VAR> to it in ${fleetPath}`,
    };
  }
  return {
    node,
    baseUrl: `${origin}${path}`,
    origin,
    pathPrefix: path,
    ...(engine?.requiresKey === true && node.engineKey !== undefined
      ? { key: node.engineKey }
      : {}),
  };
}
