/**
 * An operator's start of a node (docs/design.md D33: API, CLI, dashboard, page alike) through the
 * one loop and the pure scheduler, like every other start: in a full group it waits for an idle
 * member's swap, or is refused 409 `group_busy` naming the member that holds the group and why,
 * unless forced. The group's members are asked first, so the decision judges what they say now (a
 * member that finished loading, or went idle, since the last refresh can make room). Once the loop
 * lets it go ahead, `run` starts the node, and what it answered is fed back as the start's end.
 */
import type { Clock } from '../../core/clock.ts';
import type { NodeReply, NodeStatus } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { GroupSettings } from '../../core/fleet/scheduling/types.ts';
import { snapshotOf } from '../../core/fleet/state/node-snapshot.ts';
import type { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import { StartRefused } from './loop-contract.ts';
import { startRefusalError } from './rejection.ts';
import { type ScheduleLoop } from './schedule-loop.ts';
import type { SchedulerViews } from './scheduler-views.ts';

export interface OperatorStartDeps {
  readonly loop: Pick<ScheduleLoop, 'start' | 'started'>;
  readonly views: Pick<SchedulerViews, 'viewAt' | 'settled'>;
  readonly nodes: ReadonlyMap<string, FleetNode>;
  readonly view: Pick<FleetView, 'fleet'> & {
    readonly states: Pick<FleetView['states'], 'refresh'>;
  };
  readonly groups: ReadonlyMap<string, GroupSettings>;
  readonly now: Clock;
}

export async function operatorStart(
  deps: OperatorStartDeps,
  name: string,
  force: boolean,
  run: () => Promise<NodeReply<NodeStatus>>,
): Promise<NodeReply<NodeStatus>> {
  const node = deps.nodes.get(name);
  const group = node?.group;
  if (group !== undefined) {
    const members = deps.view.fleet.nodes.filter((member) => member.group === group);
    await Promise.all(
      members.map((member) => deps.view.states.refresh(member).catch(() => undefined)),
    );
    await deps.views.settled();
  }
  const action = await deps.loop.start(name, force).catch((error: unknown) => {
    throw error instanceof StartRefused
      ? startRefusalError(error.action, deps.groups.get(error.action.group)?.max ?? 1)
      : error;
  });
  const reply = await run().catch((error: unknown) => {
    deps.loop.started(action, { detail: (error as Error).message });
    throw error;
  });
  deps.loop.started(
    action,
    reply.ok && node !== undefined
      ? { view: deps.views.viewAt(snapshotOf(node, reply), deps.now()) }
      : { detail: reply.ok ? `no node named "${name}"` : reply.detail },
  );
  return reply;
}
