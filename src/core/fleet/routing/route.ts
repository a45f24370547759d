/**
 * Routing decisions (spec §4.2 rules 3 and 5), pure: from the requested model and the node
 * snapshots, serve it on a running node (ranked by `prefer`, file order breaking ties), wait for
 * one that is loading it (GUIDE D13), or say that a wake is needed. Loopback-only engines without
 * an engine override are never chosen (GUIDE D15).
 */
import type { GatewayErrorCode } from '../../http/gateway-error.ts';
import type { Fleet, FleetNode } from '../file/fleet-file.ts';
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

export type Decision =
  | { readonly kind: 'serve'; readonly target: EngineTarget }
  | { readonly kind: 'wait'; readonly node: FleetNode }
  | {
      readonly kind: 'refuse';
      readonly status: number;
      readonly code: GatewayErrorCode;
      readonly message: string;
    }
  | { readonly kind: 'wake' };

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
 * host to reach it by (GUIDE D15): no request can be sent there.
 */
export function loopbackOnly(snapshot: NodeSnapshot & { ok: true }): boolean {
  // A local node's engine runs beside the gateway (GUIDE D27): its loopback is the gateway's own.
  return (
    snapshot.node.kind !== 'local' &&
    snapshot.status.engine?.loopbackOnly === true &&
    snapshot.node.engine?.host === undefined
  );
}

/** The engine's base URL as this gateway reaches it, or why it cannot. */
export function engineTarget(
  snapshot: NodeSnapshot & { ok: true },
  fleetPath: string,
): EngineTarget | Unusable {
  const { node, status } = snapshot;
  const engine = status.engine;
  const override = node.engine;
  if (loopbackOnly(snapshot)) {
    // GUIDE D19: a loopback-only match is a 502 naming the node; retrying cannot help.
    return {
      status: 502,
      code: 'loopback_only',
      unusable: `node "${node.name}" has its engine bound to loopback, so it answers only on that machine: bind the engine to a reachable address (llama.cpp's --host 0.0.0.0), or give this node an engine host in ${fleetPath}`,
    };
  }
  const port = override?.port ?? engine?.port;
  // spec §2.2: a remote environment publishes the address its engine is reached by; a daemon's
  // reported host is only its bind address (0.0.0.0), so the node's own host stands for it; a
  // local node's engine runs beside the gateway, on loopback (GUIDE D27).
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

/** spec §4.2 rule 3 with GUIDE D12: idle prefers the most idle (never active first). */
function rank(
  fleet: Fleet,
  candidates: readonly (NodeSnapshot & { ok: true })[],
): (NodeSnapshot & { ok: true })[] {
  const order = new Map(fleet.nodes.map((node, index) => [node.name, index]));
  const idleness = (snapshot: NodeSnapshot & { ok: true }): number =>
    snapshot.status.lastActiveAt === undefined
      ? Number.POSITIVE_INFINITY
      : (snapshot.status.idleSeconds ?? 0);
  const prefer = fleet.prefer ?? 'idle';
  return [...candidates].sort((a, b) => {
    const difference = prefer === 'idle' ? idleness(b) - idleness(a) : idleness(a) - idleness(b);
    if (difference !== 0 && !Number.isNaN(difference)) {
      return difference;
    }
    return (order.get(a.node.name) ?? 0) - (order.get(b.node.name) ?? 0);
  });
}

export function route(model: string, snapshots: readonly NodeSnapshot[], fleet: Fleet): Decision {
  const running = snapshots.filter((snapshot): snapshot is NodeSnapshot & { ok: true } =>
    serves(snapshot, model),
  );
  const ready = running.filter((snapshot) => snapshot.status.ready !== 'not-ready');
  const unusable: Unusable[] = [];
  for (const snapshot of rank(fleet, ready)) {
    const target = engineTarget(snapshot, fleet.path);
    if (!('unusable' in target)) {
      return { kind: 'serve', target };
    }
    unusable.push(target);
  }
  // GUIDE D13: a node still loading the model is waited for, if its engine will be usable.
  const loading = running.find(
    (snapshot) =>
      snapshot.status.ready === 'not-ready' && !('unusable' in engineTarget(snapshot, fleet.path)),
  );
  if (loading !== undefined) {
    return { kind: 'wait', node: loading.node };
  }
  for (const snapshot of running.filter((entry) => entry.status.ready === 'not-ready')) {
    const target = engineTarget(snapshot, fleet.path);
    if ('unusable' in target) {
      unusable.push(target);
    }
  }
  const [first] = unusable;
  if (first !== undefined) {
    return {
      kind: 'refuse',
      status: first.status,
      code: first.code,
      message: unusable.map((entry) => entry.unusable).join('\n'),
    };
  }
  return { kind: 'wake' };
}

/** The "nothing serves it" text: each node and what it is doing. */
export function describeFleet(
  model: string,
  snapshots: readonly NodeSnapshot[],
  fleet: Fleet,
): string {
  const rows = snapshots.map((snapshot) => {
    const what = snapshot.ok
      ? `${snapshot.status.state}${(snapshot.status.servedName ?? snapshot.status.model) ? `  ${snapshot.status.servedName ?? snapshot.status.model ?? ''}` : ''}`
      : `${snapshot.outcome} (${snapshot.detail})`;
    return `  ${snapshot.node.name.padEnd(16)} ${what}`;
  });
  return [`no node in ${fleet.path} is serving ${model}:`, ...rows].join('\n');
}
