/**
 * Routing's test inputs: daemon nodes on `<name>.lan`, a fleet of them, and a node running MODEL
 * as SERVED with its status changed where a test says.
 */
import type { StatusResponse } from '../../../src/core/contract/schemas.ts';
import type {
  DaemonNode,
  Fleet,
  FleetNode,
  Preference,
} from '../../../src/core/fleet/file/fleet-file.ts';
import type { NodeSnapshot } from '../../../src/core/fleet/state/node-snapshot.ts';
import { daemonNode } from '../project-files/fleet-node.ts';

export const MODEL = 'org/model';
export const SERVED = 'chat';

export const node = (name: string, extra: Partial<DaemonNode> = {}): DaemonNode =>
  daemonNode(name, { host: `${name}.lan`, ...extra });

/** The node `gpu` of the engineTarget cases, at gpu.lan unless told. */
export const gpu = (extra: Partial<DaemonNode> = {}): DaemonNode => node('gpu', extra);

export function fleetOf(nodes: readonly FleetNode[], prefer?: Preference): Fleet {
  return { path: 'fleet.yaml', nodes, ...(prefer === undefined ? {} : { prefer }) };
}

export type OkSnapshot = NodeSnapshot & { ok: true };

/** Changes to the default status; a field set to undefined is left out of the reply. */
export type StatusChanges = { [K in keyof StatusResponse]?: StatusResponse[K] | undefined };

/** A node running MODEL as SERVED, ready, its engine on 8080, never active unless told. */
export function running(target: FleetNode, changes: StatusChanges = {}): OkSnapshot {
  const status = Object.fromEntries(
    Object.entries({
      state: 'running',
      runner: 'llamacpp',
      model: MODEL,
      servedName: SERVED,
      engine: { port: 8080 },
      ready: 'ready',
      version: 'dev',
      ...changes,
    }).filter(([, value]) => value !== undefined),
  ) as StatusResponse;
  return { node: target, ok: true, status };
}
