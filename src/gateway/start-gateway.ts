/**
 * `startGateway()`: the fleet view, the waker and the HTTP surface, listening. The command and
 * the tests call it; it returns the bound address and a close that lets in-flight streams end
 * within a short grace, then stops the engines of the fleet's local nodes (docs/design.md D27).
 */
import { SvcError } from '../core/errors.ts';
import { fleetDriver } from '../core/fleet/drivers/by-kind.ts';
import { fleetStateDir } from '../core/fleet/drivers/fleet-claim.ts';
import { LocalEngines } from '../core/fleet/drivers/local-engines.ts';
import { STATUS_TIMEOUT_MS } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, LocalNode, Variables } from '../core/fleet/file/fleet-file.ts';
import { Scheduler } from '../core/fleet/scheduling/scheduler.ts';
import { schedulerSettings } from '../core/fleet/scheduling/settings.ts';
import { schedulerOptionsOf } from '../core/fleet/scheduling/settings-of-fleet.ts';
import { NODE_STATES_DEFAULTS } from '../core/fleet/state/node-snapshot.ts';
import { FleetView } from '../core/fleet/state/node-snapshots.ts';
import { NodeStates } from '../core/fleet/state/node-states.ts';
import { httpUrl, listen } from '../core/http/listen.ts';
import type { ListenAddress } from '../core/http/listen-address.ts';
import type { Logger } from '../core/logger.ts';
import { DEFAULT_SAMPLE_INTERVAL_MS } from '../core/metrics/sampler.ts';
import { FleetHistory } from './history/fleet-history.ts';
import { buildGateway } from './http/app.ts';
import { GatewayMetrics } from './metrics/gateway-metrics.ts';
import { countAction } from './metrics/scheduling-actions.ts';
import type { NodeProblems } from './models/fleet-reply.ts';
import { localProblems } from './models/node-problems.ts';
import { availableNow } from './models/snapshot-replies.ts';
import { refuseNameClashes } from './names/name-claims.ts';
import { RequestNames, servedNameIn } from './names/request-names.ts';
import { loadPage } from './page/fleet-page.ts';
import { shuttingDown } from './relay/relay-cuts.ts';
import { GatewayScheduler } from './scheduling/gateway-scheduler.ts';
import { type LoopTimers } from './scheduling/loop-contract.ts';
import { gatewayUsage } from './usage/caller-usage.ts';
import { MachineWaker } from './wakes/machine-wake.ts';
import { fleetSecrets } from './wakes/node-command-env.ts';
import { NodeCommands } from './wakes/node-commands.ts';
import { Waker } from './wakes/wake.ts';

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
  /**
   * Local nodes' engines (docs/design.md D27): stop grace (docs/design.md D10) and sampler tick
   * (spec §8).
   */
  readonly stopGraceMs?: number;
  readonly sampleIntervalMs?: number;
}

/**
 * The operator token (docs/design.md D28), refused before listening when it cannot mean anything:
 * its variable set nowhere (a fleet read `lenient`), or the same token as the gateway's, which
 * would give every caller operator rights. Neither message holds a token.
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

/** The scheduler's clock is the wall clock: node views and `lastActiveAt` are on it. */
const SCHEDULER_TIMERS: LoopTimers = {
  now: () => Date.now(),
  after: (ms, run) => {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface RunningGateway {
  readonly address: ListenAddress;
  /** Why a local node's next start would fail, by node, read once the gateway listens. */
  readonly problems: Promise<NodeProblems>;
  close(graceMs?: number): Promise<void>;
}

const localNodesOf = (fleet: Fleet): LocalNode[] =>
  fleet.nodes.filter((node): node is LocalNode => node.kind === 'local');

/**
 * The engines of the fleet's local nodes (docs/design.md D27), when it has any, the fleet claimed
 * for this gateway: refused, before anything listens or any engine is touched, while another live
 * gateway runs the same fleet file (fleet-claim.ts).
 */
async function localEnginesOf(
  options: GatewayOptions,
  operatorToken: string | undefined,
): Promise<LocalEngines | undefined> {
  const nodes = localNodesOf(options.fleet);
  if (nodes.length === 0) {
    return undefined;
  }
  const secrets = [options.token, operatorToken].filter((value) => value !== undefined);
  const engines = new LocalEngines({
    stateDir: fleetStateDir(options.configDir, options.fleet.path),
    fleetPath: options.fleet.path,
    env: options.env,
    logger: options.logger,
    stopGraceMs: options.stopGraceMs ?? 10_000,
    sampleIntervalMs: options.sampleIntervalMs ?? DEFAULT_SAMPLE_INTERVAL_MS,
    secrets,
  });
  await engines.own(nodes);
  return engines;
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const operatorToken = operatorTokenOf(options);
  const local = await localEnginesOf(options, operatorToken);
  // docs/design.md D21: every node is reached through its kind's driver, and only through it.
  const driver = fleetDriver(
    { fleet: options.fleet, configDir: options.configDir, env: options.env },
    local === undefined ? {} : { local },
  );
  const states = new NodeStates(options.fleet.nodes, {
    ...NODE_STATES_DEFAULTS,
    client: driver,
    timeoutMs: STATUS_TIMEOUT_MS,
    now: () => Date.now(),
    // Unref'd: the refresh loop never holds the process open on its own.
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
  });
  const view = new FleetView(options.fleet, states, driver);
  // docs/design.md D31: names that clash are refused before anything listens.
  await refuseNameClashes(options.fleet, (node) => view.source(node)).catch(
    async (error: unknown) => {
      await local?.stopAll();
      throw error;
    },
  );
  // A scrape reads node state like /v1/fleet does: the kept snapshots, refreshed when stale.
  const scheduler = new Scheduler(
    schedulerSettings(schedulerOptionsOf(options.fleet, options.wakeTimeoutMs)),
  );
  // What /v1/fleet and /metrics read of the scheduler (docs/design.md D25, D26): in flight, queued,
  // idle.
  const metrics = new GatewayMetrics(() => view.all(), scheduler);
  const waker = new Waker(view, options.wakeTimeoutMs, options.logger, driver, metrics);
  // docs/design.md D26: wake and sleep commands never see a token or key the fleet file names.
  const commands = new NodeCommands({
    logger: options.logger,
    env: options.env,
    hidden: fleetSecrets(options.fleet, options.token),
    observer: {
      commandEnded: (node, command, outcome) => {
        if (command === 'wake') {
          metrics.wakeCommandRan(node, outcome);
        }
      },
    },
  });
  const usage = gatewayUsage(options.fleet.callers, metrics.registries);
  // The page's charts (history/fleet-history.ts): sampled here, from what passes through.
  const history = new FleetHistory({
    nodes: options.fleet.nodes,
    readout: scheduler,
    tokensOf: (node) => usage.completionTokensOf(node),
    snapshots: () => states.current().snapshots,
    now: () => Date.now(),
    every: (ms, run) => {
      const timer = setInterval(run, ms);
      timer.unref();
      return () => clearInterval(timer);
    },
  });
  const scheduling = new GatewayScheduler({
    scheduler,
    view,
    waker,
    machines: new MachineWaker(commands, driver, options.logger),
    commands,
    driver,
    logger: options.logger,
    timers: SCHEDULER_TIMERS,
    wakeTimeoutMs: options.wakeTimeoutMs,
    available: () => availableNow(view),
    applied: (action) => {
      countAction(metrics, action);
      history.observe(action);
    },
  });
  const names = RequestNames.of(options.fleet, servedNameIn(view));
  const server = buildGateway({
    view,
    scheduling,
    ...(names === undefined ? {} : { names }),
    metrics,
    page: await loadPage(undefined, { tokenless: options.token === undefined }),
    nodes: driver,
    readout: scheduler,
    usage,
    history,
    logger: options.logger,
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(operatorToken === undefined ? {} : { operatorToken }),
    replyTimeoutMs: options.replyTimeoutMs,
    ...(options.fleet.cors === undefined ? {} : { cors: options.fleet.cors }),
    startedAt: Date.now(),
  });
  const address = await listen(server, options.listen).catch(async (error: unknown) => {
    await local?.stopAll();
    throw error;
  });
  // Only with the address ours are engines touched: what a dead gateway of this fleet left.
  await local?.takeOver(localNodesOf(options.fleet), httpUrl(address));
  // The first round starts at once, so the first requests find most of the fleet already known;
  // keep-warm starts, a daemon node's too, only now that the address is ours.
  states.use();
  scheduling.watch();
  return {
    address,
    // docs/design.md D27: a broken Svcfile or missing model file is said now, not at a request.
    problems: localProblems(options.fleet.nodes, (node) => view.source(node)),
    async close(graceMs = 3_000) {
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      states.close();
      history.close();
      scheduling.close();
      await commands.stopAll();
      server.closeIdleConnections();
      // Past the grace, a stream still relayed says why it ends (docs/design.md D33) once its
      // last bytes are out; then every connection goes.
      const timer = setTimeout(() => {
        // A caller that reads nothing more holds the shutdown one more grace at most.
        const backstop = setTimeout(() => server.closeAllConnections(), graceMs).unref();
        void scheduling.relays.cut(shuttingDown()).finally(() => {
          clearTimeout(backstop);
          server.closeAllConnections();
        });
      }, graceMs);
      await closed;
      clearTimeout(timer);
      // Nothing outlives the gateway (docs/design.md D27): its local engines' groups go with it.
      await local?.stopAll();
    },
  };
}
