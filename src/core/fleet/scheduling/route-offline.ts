/**
 * `svc fleet route` without a gateway to ask (docs/design.md D33), pure: a fresh scheduler for the
 * fleet file, fed the views of the nodes' own status and what their sources would start, asked what
 * it would do. It is the gateway's own code over the same facts, less what only a running gateway
 * knows: its requests in flight, its queue, its wakes under way and its affinity memory.
 */
import type { Fleet } from '../file/fleet-file.ts';
import type { NodeSnapshot } from '../state/node-snapshot.ts';
import type { RouteDecision } from './route-decision.ts';
import { Scheduler } from './scheduler.ts';
import { schedulerSettings } from './settings.ts';
import { schedulerOptionsOf } from './settings-of-fleet.ts';
import { asleepOrAsIs, viewOfSnapshot, type WakeFacts } from './view-of-snapshot.ts';

export function routeFromStatus(
  fleet: Fleet,
  model: string,
  snapshots: readonly NodeSnapshot[],
  /** What a wake of each node not running would start (its source), by node name. */
  facts: ReadonlyMap<string, WakeFacts>,
  now: number,
  wakeTimeoutMs: number,
): RouteDecision {
  const options = schedulerOptionsOf(fleet, wakeTimeoutMs);
  // Keep-warm starts and idle stops are a running gateway's, not this question's.
  const { idleStopMs: _idle, ...rest } = options;
  const nodes = options.nodes.map(({ keepWarm: _warm, idleStopMs: _stop, ...node }) => node);
  const scheduler = new Scheduler(schedulerSettings({ ...rest, nodes }));
  const views = snapshots.map((snapshot) =>
    asleepOrAsIs(
      snapshot.node,
      viewOfSnapshot(snapshot, now, facts.get(snapshot.node.name), fleet.path),
    ),
  );
  scheduler.step({ kind: 'views', views }, now);
  return scheduler.route(model, now);
}
