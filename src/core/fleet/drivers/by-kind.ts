/**
 * The driver for a whole fleet: one per node kind behind the seam (GUIDE D21), built once per
 * gateway or `svc fleet` run.
 */
import { daemonDriver } from './daemon-driver.ts';
import { byKind, type DriverContext, type FleetNodeDriver } from './node-driver.ts';
import { remoteDriver, type RemoteDriverOptions } from './remote-driver.ts';

export function fleetDriver(
  context: DriverContext,
  remote: RemoteDriverOptions = {},
): FleetNodeDriver {
  return byKind({ daemon: daemonDriver(context), remote: remoteDriver(context, remote) });
}
