/**
 * NodeStates as unit tests drive them: a fake fleet whose nodes answer at once with a model, fail
 * to connect, or hang until timed out; an injected clock and sleep; and the gateway's scheduler fed
 * every stored snapshot, so a request's wait before it is placed (freshen.ts) runs as in the gateway.
 */
import type { StatusResponse } from '../../../src/core/contract/schemas.ts';
import { fleetDriver } from '../../../src/core/fleet/drivers/by-kind.ts';
import type { NodeReply } from '../../../src/core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../../../src/core/fleet/file/fleet-file.ts';
import { Scheduler } from '../../../src/core/fleet/scheduling/scheduler.ts';
import { schedulerSettings } from '../../../src/core/fleet/scheduling/settings.ts';
import { viewOfSnapshot } from '../../../src/core/fleet/scheduling/view-of-snapshot.ts';
import { freshen } from '../../../src/core/fleet/state/freshen.ts';
import type { NodeStatesOptions } from '../../../src/core/fleet/state/node-snapshot.ts';
import { FleetView } from '../../../src/core/fleet/state/node-snapshots.ts';
import { NodeStates } from '../../../src/core/fleet/state/node-states.ts';
import { daemonNode } from '../project-files/fleet-node.ts';

const OPTIONS = {
  refreshMs: 2_000,
  staleMs: 15_000,
  idleAfterMs: 30_000,
  timeoutMs: 5_000,
  concurrency: 4,
  tickMs: 250,
  maxStatusPerSecond: 1_000,
};

export const node = (name: string): FleetNode => daemonNode(name);

export const running = (model: string): StatusResponse => ({
  state: 'running',
  runner: 'llamacpp',
  model,
  engine: { port: 8080 },
  ready: 'ready',
  version: 'dev',
});

export const flush = async (): Promise<void> => {
  for (let round = 0; round < 5; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
};

/** A fake fleet: each node answers at once with `models[name]`, or hangs until `release`. */
export function harness(
  names: readonly string[],
  models: Record<string, string>,
  overrides: Partial<NodeStatesOptions> = {},
  /** How late every sleep ends (a busy event loop). */
  lateMs = 0,
) {
  let time = 0;
  const sleepers: { until: number; resolve: () => void }[] = [];
  const asked: string[] = [];
  const hung: ((reply: NodeReply<StatusResponse>) => void)[] = [];
  let inFlight = 0;
  let peak = 0;
  const nodes = names.map(node);
  const options: NodeStatesOptions = {
    ...OPTIONS,
    ...overrides,
    now: () => time,
    sleep: (ms) =>
      new Promise((resolve) => {
        sleepers.push({ until: time + ms + lateMs, resolve });
      }),
    client: {
      status: async (target) => {
        asked.push(target.name);
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        try {
          const model = models[target.name] ?? 'hang';
          if (model === 'down') {
            throw new Error('connect ECONNREFUSED');
          }
          if (model === 'hang') {
            return await new Promise<NodeReply<StatusResponse>>((resolve) => hung.push(resolve));
          }
          return { ok: true, value: running(model) };
        } finally {
          inFlight -= 1;
        }
      },
    },
  };
  const states = new NodeStates(nodes, options);
  const fleet: Fleet = { path: 'fleet.yaml', nodes };
  const view = new FleetView(
    fleet,
    states,
    fleetDriver({ fleet, configDir: '/nonexistent', env: {} }),
  );
  // The gateway's scheduler, fed every stored snapshot as the gateway feeds it (docs/design.md
  // D33).
  const scheduler = new Scheduler(schedulerSettings({ nodes: names.map((name) => ({ name })) }));
  states.onSnapshot((snapshot, askedAt) => {
    scheduler.step({ kind: 'views', views: [viewOfSnapshot(snapshot, askedAt)] }, time);
  });
  return {
    states,
    view,
    scheduler,
    /**
     * What a request for `model` does before the scheduler admits it when it cannot be placed at
     * once (freshen.ts); resolves with whether it can be placed then.
     */
    async forModel(model: string): Promise<boolean> {
      states.use();
      if (!scheduler.placeable(model)) {
        const settled = () => Promise.resolve();
        await freshen({ states, scheduler, settled, now: () => time }, model);
      }
      return scheduler.placeable(model);
    },
    asked,
    peak: () => peak,
    /** Moves the clock on, waking the loop's sleeps that are due. */
    async advance(ms: number) {
      const end = time + ms;
      while (time < end) {
        time = Math.min(end, time + OPTIONS.tickMs);
        for (const sleeper of sleepers.splice(0)) {
          if (sleeper.until <= time) {
            sleeper.resolve();
          } else {
            sleepers.push(sleeper);
          }
        }
        await flush();
      }
    },
    /** The hung calls time out (as the client's own timeout would end them). */
    timeOut() {
      for (const resolve of hung.splice(0)) {
        resolve({ ok: false, outcome: 'unreachable', detail: 'timed out' });
      }
    },
  };
}
