/**
 * The driver for a whole fleet: one per node kind behind the seam (docs/design.md D21), built once
 * per gateway or `svc fleet` run. Local nodes (docs/design.md D27) are driven only where their
 * engines are supervised (the gateway passes its LocalEngines); elsewhere through the gateway the
 * fleet file's `gateway` section names, and without one they answer that the gateway runs them.
 */
import { freeLoopbackPort } from '../../http/free-port.ts';
import { daemonDriver } from './daemon-driver.ts';
import { gatewayLocalDriver, gatewayNodeAct } from './gateway-local-driver.ts';
import { localDriver } from './local-driver.ts';
import type { LocalEngines } from './local-engines.ts';
import {
  byKind,
  type DriverContext,
  type FleetNodeDriver,
  type GatewayNodeAct,
} from './node-driver.ts';
import { remoteDriver, type RemoteDriverOptions } from './remote-driver.ts';
import { upstreamDriver } from './upstream-driver.ts';

export interface FleetDriverOptions extends RemoteDriverOptions {
  /** The local nodes' engines, where this process supervises them (the gateway). */
  readonly local?: LocalEngines;
}

export function fleetDriver(
  context: DriverContext,
  options: FleetDriverOptions = {},
): FleetNodeDriver {
  const { local, ...remote } = options;
  const gateway = context.fleet.gateway?.url;
  return byKind({
    daemon: daemonDriver(context),
    remote: remoteDriver(context, remote),
    upstream: upstreamDriver(),
    // docs/design.md D27: the gateway drives its own local engines; anyone else asks that gateway.
    ...(local !== undefined
      ? {
          local: localDriver(context, local, {
            now: () => new Date(),
            freePort: freeLoopbackPort,
          }),
        }
      : gateway === undefined
        ? {}
        : { local: gatewayLocalDriver(context, gateway) }),
  });
}

/**
 * Starts and stops through the gateway the fleet file names (docs/design.md D33: a group member's
 * start is the scheduler's), or undefined when it names none.
 */
export function fleetGatewayAct(context: DriverContext): GatewayNodeAct | undefined {
  return context.fleet.gateway === undefined ? undefined : gatewayNodeAct(context);
}
