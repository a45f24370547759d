/**
 * `svc fleet dashboard`: the live loop around the pure layout (dashboard-layout.ts) and the
 * shared terminal driver. Every node's metrics are read on a local cadence (2 s), the selected
 * node's engine log through its byte cursor while its detail is open, and `s` / `x` start or stop
 * the selected node exactly as `svc fleet start|stop` does (../start-stop.ts); `f` asks, and on
 * `y` does what `svc fleet stop --force` does (docs/design.md D33).
 */
import type { CommandIo } from '../../core/command.ts';
import { SvcError } from '../../core/errors.ts';
import type { FleetNodeDriver, GatewayNodeAct } from '../../core/fleet/drivers/node-driver.ts';
import type { Fleet } from '../../core/fleet/file/fleet-file.ts';
import { fleetDotenv } from '../../core/fleet/load/load-fleet.ts';
import { advance, type LogCursor, START_CURSOR } from '../../core/runner/log-cursor.ts';
import { nextShutdownSignal } from '../../core/signals.ts';
import { openTerminal } from '../../core/view/terminal.ts';
import { askGateway } from '../gateway-readout.ts';
import type { CounterReading } from '../metrics.ts';
import { readMetrics } from '../metrics-command.ts';
import { fleetAct } from '../start-stop.ts';
import { dashboardAction, decodeDashboardKeys } from './dashboard-keys.ts';
import { dashboardLayout, type DashboardState } from './dashboard-layout.ts';

export const DASHBOARD_REFRESH_MS = 2_000;
const LOG_POLL_MS = 500;
const LOG_LINES_KEPT = 500;

export interface DashboardCommand {
  readonly fleet: Fleet;
  readonly io: CommandIo;
  readonly driver: FleetNodeDriver;
  /** Starts and stops through the gateway the fleet file names (start-stop.ts). */
  readonly gatewayAct?: GatewayNodeAct;
}

export async function runDashboard(command: DashboardCommand): Promise<number> {
  const { fleet, io, driver } = command;
  if (!io.stdin.isTTY || !io.stdout.isTTY) {
    throw new SvcError(
      'ERR_USAGE',
      'svc fleet dashboard needs a terminal; off one use svc fleet status or svc fleet metrics -w',
    );
  }
  const terminal = openTerminal(io.stdin, io.stdout, decodeDashboardKeys);
  let state: DashboardState = {
    fleetPath: fleet.path,
    nodes: fleet.nodes.map((node) => ({ name: node.name })),
    selected: 0,
    screen: 'list',
    log: [],
    now: new Date(),
  };
  const render = (): void => {
    terminal.draw(dashboardLayout(state, terminal.columns(), terminal.rows()));
  };

  const previous = new Map<string, CounterReading>();
  const variables = [io.env, await fleetDotenv(fleet.path)];
  let refreshing = false;
  const refresh = async (): Promise<void> => {
    if (refreshing) {
      return;
    }
    refreshing = true;
    try {
      // The queue lives only in the gateway (docs/design.md D25): asked beside the nodes.
      const [entries, gateway] = await Promise.all([
        readMetrics(fleet, fleet.nodes, driver, previous, Date.now),
        askGateway(fleet, variables),
      ]);
      const { queued: _stale, ...rest } = state;
      state = {
        ...rest,
        ...(gateway?.ok === true ? { queued: gateway.queued } : {}),
        now: new Date(),
        nodes: entries.map((entry) => ({
          name: entry.node,
          reading:
            entry.metrics === undefined
              ? { ok: false, outcome: entry.outcome, detail: entry.error ?? '' }
              : {
                  ok: true,
                  stats: entry.metrics,
                  ...(entry.rates === undefined ? {} : { rates: entry.rates }),
                },
        })),
      };
      render();
    } finally {
      refreshing = false;
    }
  };

  let cursor: LogCursor = START_CURSOR;
  let logNode: string | undefined;
  let readingLog = false;
  const pollLog = async (): Promise<void> => {
    const node = fleet.nodes[state.selected];
    if (state.screen !== 'detail' || node === undefined || readingLog) {
      return;
    }
    readingLog = true;
    try {
      if (logNode !== node.name) {
        logNode = node.name;
        cursor = START_CURSOR;
        state = { ...state, log: [] };
      }
      const reply = await driver.logs(
        node,
        cursor.offset === undefined ? {} : { offset: cursor.offset },
      );
      if (reply.ok && logNode === node.name) {
        const step = advance(cursor, reply.value);
        cursor = step.cursor;
        if (step.lines.length > 0) {
          state = { ...state, log: [...state.log, ...step.lines].slice(-LOG_LINES_KEPT) };
          render();
        }
      }
    } finally {
      readingLog = false;
    }
  };

  const act = (verb: 'start' | 'stop', force = false): void => {
    const node = fleet.nodes[state.selected];
    if (node === undefined) {
      return;
    }
    state = { ...state, notice: `${verb === 'start' ? 'starting' : 'stopping'} ${node.name}…` };
    render();
    const lines: string[] = [];
    void fleetAct(verb, fleet, [node], {
      driver,
      force,
      ...(command.gatewayAct === undefined ? {} : { gatewayAct: command.gatewayAct }),
      print: (line) => lines.push(line),
    }).then(() => {
      state = { ...state, notice: lines.at(-1) ?? '' };
      void refresh();
    });
  };

  let quit: () => void = () => undefined;
  const quitting = new Promise<void>((resolve) => {
    quit = resolve;
  });
  terminal.onKeys((keys) => {
    for (const key of keys) {
      const action = dashboardAction(key, state.confirm === undefined ? state.screen : 'confirm');
      if (action === undefined) {
        continue;
      }
      const { confirm: asked, ...rest } = state;
      if (action.type === 'quit') {
        quit();
      } else if (action.type === 'force-stop') {
        const node = fleet.nodes[state.selected];
        state = node === undefined ? state : { ...state, confirm: node.name };
      } else if (action.type === 'confirm' || action.type === 'cancel') {
        state = rest;
        if (action.type === 'confirm' && asked !== undefined) {
          act('stop', true);
        }
      } else if (action.type === 'select') {
        const last = Math.max(0, fleet.nodes.length - 1);
        state = { ...state, selected: Math.min(last, Math.max(0, state.selected + action.by)) };
      } else if (action.type === 'detail') {
        state = { ...state, screen: action.open ? 'detail' : 'list' };
        void pollLog();
      } else {
        act(action.type);
      }
    }
    render();
  });
  terminal.onResize(render);

  const refreshTimer = setInterval(() => void refresh(), DASHBOARD_REFRESH_MS);
  const logTimer = setInterval(() => void pollLog(), LOG_POLL_MS);
  render();
  void refresh();
  try {
    // q, Ctrl+C (raw mode turns it into a key) or a signal from outside: a clean exit
    // (docs/design.md D17).
    await Promise.race([quitting, nextShutdownSignal()]);
  } finally {
    clearInterval(refreshTimer);
    clearInterval(logTimer);
    terminal.restore();
  }
  return 0;
}
