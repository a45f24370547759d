/**
 * The gateway's node states and fleet view over a fake driver, as unit tests that build a
 * gateway's parts by hand need them: statuses asked at once with the wall clock, refreshes that
 * never sleep on their own.
 */
import type { NodeDriver } from '../../../src/core/fleet/drivers/node-driver.ts';
import type { Fleet } from '../../../src/core/fleet/file/fleet-file.ts';
import { NODE_STATES_DEFAULTS } from '../../../src/core/fleet/state/node-snapshot.ts';
import { FleetView } from '../../../src/core/fleet/state/node-snapshots.ts';
import { NodeStates } from '../../../src/core/fleet/state/node-states.ts';

export function fleetViewOver(
  fleet: Fleet,
  driver: Pick<NodeDriver, 'status' | 'wakeSource'>,
): { readonly states: NodeStates; readonly view: FleetView } {
  const states = new NodeStates(fleet.nodes, {
    ...NODE_STATES_DEFAULTS,
    client: driver,
    timeoutMs: 5_000,
    now: () => Date.now(),
    sleep: () => new Promise(() => undefined),
  });
  return { states, view: new FleetView(fleet, states, driver) };
}
