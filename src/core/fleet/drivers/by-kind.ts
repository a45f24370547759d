/**
 * The driver for a whole fleet: one per node kind behind the seam (GUIDE D21), built once per
 * gateway or `svc fleet` run.
 */
import { daemonDriver, type DriverContext } from './daemon-driver.ts';
import { byKind, type FleetNodeDriver } from './node-driver.ts';
import { remoteDriver, type RemoteDriverOptions } from './remote-driver.ts';

export type { DriverContext } from './daemon-driver.ts';

export function fleetDriver(
  context: DriverContext,
  remote: RemoteDriverOptions = {},
): FleetNodeDriver {
  return byKind({ daemon: daemonDriver(context), remote: remoteDriver(context, remote) });
}
