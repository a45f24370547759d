/**
 * Where a dispatched request goes: the engine of its node's latest snapshot (spec §2.2, §4.2 rule
 * 3), worked out once per snapshot and kept beside it, so a request pays for it only when the
 * node's status changed. An engine no request may reach (loopback-only, no port) is the 502 the
 * request gets.
 */
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { type EngineTarget, engineTarget } from '../../core/fleet/routing/engine-target.ts';
import type { FleetView, NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';

export class EngineTargets {
  private readonly targets = new WeakMap<NodeSnapshot, EngineTarget | GatewayError>();

  constructor(
    private readonly view: FleetView,
    private readonly nodes: ReadonlyMap<string, FleetNode>,
  ) {}

  /** The node is kept at the short refresh period while requests go to it (node-states.ts). */
  of(name: string): EngineTarget {
    const node = this.nodes.get(name);
    const states = this.view.states;
    states.routedTo(name);
    const snapshot = node === undefined ? undefined : states.last(node);
    if (snapshot === undefined || !snapshot.ok) {
      throw new GatewayError(502, `node "${name}" stopped answering before its request was sent`);
    }
    let target = this.targets.get(snapshot);
    if (target === undefined) {
      const found = engineTarget(snapshot, this.view.fleet.path);
      target =
        'unusable' in found
          ? new GatewayError(found.status, found.unusable, { code: found.code })
          : found;
      this.targets.set(snapshot, target);
    }
    if (target instanceof GatewayError) {
      throw target;
    }
    return target;
  }
}
