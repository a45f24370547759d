/** A fleet file's daemon node as the unit tests build it; `extra` sets what a test cares about. */
import type { FleetNode } from '../../src/core/fleet/file/fleet-file.ts';

export function daemonNode(name: string, extra: Partial<FleetNode> = {}): FleetNode {
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
