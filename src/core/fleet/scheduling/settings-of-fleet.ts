/**
 * The scheduler's options from a parsed fleet file (docs/design.md D25, D26) and the gateway's
 * `--wake-timeout`. Pure: the file says what it says, each key as written; settings.ts fills what
 * it leaves out and resolves a node's own setting over the fleet-wide one. A group's defaults are
 * filled here, since the scheduler takes a group's settings whole.
 */
import type { Fleet, FleetQueueLimits } from '../file/fleet-file.ts';
import { GROUP_DEFAULTS, type NodeOptions, type SchedulerOptions } from './settings.ts';
import type { GroupSettings, QueueLimits } from './types.ts';

/** What of a fleet file the scheduler reads. */
export type FleetSchedulingSource = Pick<
  Fleet,
  'nodes' | 'prefer' | 'queue' | 'affinity' | 'scaleOut' | 'idleStopMs' | 'groups' | 'fallbacks'
>;

function limits(written: FleetQueueLimits): Partial<QueueLimits> {
  return {
    ...(written.max === undefined ? {} : { max: written.max }),
    ...(written.timeoutMs === undefined ? {} : { timeoutMs: written.timeoutMs }),
  };
}

export function schedulerOptionsOf(
  fleet: FleetSchedulingSource,
  wakeTimeoutMs: number,
): SchedulerOptions {
  const nodes = fleet.nodes.map((node): NodeOptions =>
    // docs/design.md D30: an upstream node is never started, stopped or woken by the scheduler.
    node.kind === 'upstream'
      ? { name: node.name, upstream: Object.keys(node.models), idleStopMs: 'off', scaleOut: false }
      : {
          name: node.name,
          ...(node.group === undefined ? {} : { group: node.group }),
          ...(node.idleStopMs === undefined ? {} : { idleStopMs: node.idleStopMs }),
          ...(node.keepWarm === undefined ? {} : { keepWarm: node.keepWarm }),
          ...(node.scaleOut === undefined ? {} : { scaleOut: node.scaleOut }),
        },
  );
  const queueByModel = new Map(
    [...(fleet.queue?.models ?? [])].map(([model, own]) => [model, limits(own)] as const),
  );
  const groups = new Map(
    [...(fleet.groups ?? [])].map(([name, own]): [string, GroupSettings] => [
      name,
      { ...GROUP_DEFAULTS, ...own },
    ]),
  );
  return {
    nodes,
    wakeTimeoutMs,
    queueByModel,
    groups,
    ...(fleet.queue === undefined ? {} : { queue: limits(fleet.queue) }),
    ...(fleet.prefer === undefined ? {} : { prefer: fleet.prefer }),
    ...(fleet.affinity === undefined ? {} : { affinity: fleet.affinity }),
    ...(fleet.scaleOut === undefined ? {} : { scaleOut: fleet.scaleOut }),
    ...(fleet.idleStopMs === undefined ? {} : { idleStopMs: fleet.idleStopMs }),
    ...(fleet.fallbacks === undefined ? {} : { fallbacks: fleet.fallbacks }),
  };
}
