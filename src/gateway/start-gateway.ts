/**
 * `startGateway()`: the fleet view, the waker and the HTTP surface, listening. The command and
 * the tests call it; it returns the bound address and a close that lets in-flight streams end
 * within a short grace.
 */
import { SvcError } from '../core/errors.ts';
import { fleetDriver } from '../core/fleet/drivers/by-kind.ts';
import { STATUS_TIMEOUT_MS } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, Variables } from '../core/fleet/file/fleet-file.ts';
import { NODE_STATES_DEFAULTS } from '../core/fleet/state/node-snapshot.ts';
import { FleetView } from '../core/fleet/state/node-snapshots.ts';
import { NodeStates } from '../core/fleet/state/node-states.ts';
import { listen } from '../core/http/listen.ts';
import type { ListenAddress } from '../core/http/listen-address.ts';
import type { Logger } from '../core/logger.ts';
import { buildGateway } from './http/app.ts';
import { GatewayMetrics } from './metrics/gateway-metrics.ts';
import { loadPage } from './page/fleet-page.ts';
import { InFlight } from './requests/in-flight.ts';
import { Waker } from './requests/wake.ts';
import { inFlightReadout } from './scheduling-readout.ts';

export interface GatewayOptions {
  readonly fleet: Fleet;
  readonly listen: ListenAddress;
  readonly token?: string;
  readonly wakeTimeoutMs: number;
  /** How long a non-streamed reply may take (--reply-timeout); streams have no limit. */
  readonly replyTimeoutMs: number;
  readonly logger: Logger;
  readonly configDir: string;
  readonly env: Variables;
}

/**
 * The operator token (GUIDE D28), refused before listening when it cannot mean anything: its
 * variable set nowhere (a fleet read `lenient`), or the same token as the gateway's, which would
 * give every caller operator rights. Neither message holds a token.
 */
function operatorTokenOf(options: GatewayOptions): string | undefined {
  const operator = options.fleet.operator;
  if (operator === undefined) {
    return undefined;
  }
  if (operator.token === undefined) {
    throw new SvcError(
      'ERR_FLEET',
      `${operator.tokenEnv} is not set (gateway.operatorTokenEnv): export it, or put it in the .env beside ${options.fleet.path}`,
    );
  }
  if (operator.token === options.token) {
    throw new SvcError(
      'ERR_FLEET',
      `${operator.tokenEnv} (gateway.operatorTokenEnv) holds the gateway token itself: give operators a token of their own`,
    );
  }
  return operator.token;
}

export interface RunningGateway {
  readonly address: ListenAddress;
  close(graceMs?: number): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const operatorToken = operatorTokenOf(options);
  // GUIDE D21: every node is reached through its kind's driver, and only through it.
  const driver = fleetDriver({
    fleet: options.fleet,
    configDir: options.configDir,
    env: options.env,
  });
  const states = new NodeStates(options.fleet.nodes, {
    ...NODE_STATES_DEFAULTS,
    client: driver,
    timeoutMs: STATUS_TIMEOUT_MS,
    now: () => Date.now(),
    // Unref'd: the refresh loop never holds the process open on its own.
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
  });
  const view = new FleetView(options.fleet, states, driver);
  // A scrape reads node state like /v1/fleet does: the kept snapshots, refreshed when stale.
  const inFlight = new InFlight(() => performance.now());
  // What /v1/fleet and /metrics read of the gateway's own requests (GUIDE D25): the exact count
  // until the scheduler, which is a readout itself, takes over counting.
  const scheduling = inFlightReadout((node) => inFlight.count(node));
  const metrics = new GatewayMetrics(() => view.all(), scheduling);
  const waker = new Waker(view, options.wakeTimeoutMs, options.logger, driver, metrics);
  const server = buildGateway({
    view,
    waker,
    metrics,
    page: await loadPage(),
    nodes: driver,
    inFlight,
    scheduling,
    logger: options.logger,
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(operatorToken === undefined ? {} : { operatorToken }),
    replyTimeoutMs: options.replyTimeoutMs,
    ...(options.fleet.cors === undefined ? {} : { cors: options.fleet.cors }),
    startedAt: Date.now(),
  });
  const address = await listen(server, options.listen);
  // The first round starts at once, so the first requests find most of the fleet already known.
  states.use();
  return {
    address,
    async close(graceMs = 3_000) {
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      states.close();
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
