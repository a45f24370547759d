/**
 * Room for `svc fleet start` of a group member that no gateway starts (docs/design.md D33: every
 * start goes through the scheduler): a daemon or remote node when the fleet file names no gateway,
 * or the one it names does not answer. The pure scheduler the gateway runs decides, from the
 * members' own status alone (their `busy`, `lastActiveAt` and uptime; nothing of any gateway's
 * queue): in a full group it stops an idle member past `minResidency` first, else refuses
 * naming the member that holds the group and why, unless `--force`, which stops that member.
 */
import type { Clock } from '../core/clock.ts';
import type { NodeDriver } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
import { startRefusalText } from '../core/fleet/scheduling/refusal-text.ts';
import { Scheduler } from '../core/fleet/scheduling/scheduler.ts';
import { schedulerSettings } from '../core/fleet/scheduling/settings.ts';
import { schedulerOptionsOf } from '../core/fleet/scheduling/settings-of-fleet.ts';
import type { Action } from '../core/fleet/scheduling/types.ts';
import { viewOfSnapshot } from '../core/fleet/scheduling/view-of-snapshot.ts';
import { snapshotOf } from '../core/fleet/state/node-snapshot.ts';

export interface GroupStartDeps {
  readonly driver: Pick<NodeDriver, 'status' | 'stop'>;
  readonly print: (line: string) => void;
  readonly now: Clock;
}

/** Makes room for `node` in its group (stopping a member if it must), or throws why it cannot. */
export async function makeRoom(
  fleet: Fleet,
  node: FleetNode,
  force: boolean,
  deps: GroupStartDeps,
): Promise<void> {
  const group = node.group;
  if (group === undefined) {
    return;
  }
  const members = fleet.nodes.filter((member) => member.group === group);
  const options = schedulerOptionsOf(fleet, 0);
  // Only the group is decided here: nothing is kept warm or stopped for idleness by this run.
  const nodes = members.map((member) => ({ name: member.name, group }));
  const scheduler = new Scheduler(schedulerSettings({ ...options, nodes }));
  const askedAt = deps.now();
  const views = await Promise.all(
    members.map(async (member) =>
      viewOfSnapshot(snapshotOf(member, await deps.driver.status(member)), askedAt),
    ),
  );
  scheduler.step({ kind: 'views', views }, deps.now());
  let actions: Action[] = scheduler.step(
    { kind: 'start', id: 1, node: node.name, force },
    deps.now(),
  );
  // Each round stops one member; a group cannot need more stops than it has members.
  for (let round = 0; round <= members.length; round += 1) {
    for (const action of actions) {
      if (action.kind === 'start') {
        return;
      }
      if (action.kind === 'start-refused') {
        const max = scheduler.settings.groups.get(group)?.max ?? 1;
        throw new Error(startRefusalText(action, max, '--force'));
      }
    }
    const stop = actions.find((action) => action.kind === 'stop');
    const member = members.find((candidate) => candidate.name === stop?.node);
    if (stop?.kind !== 'stop' || member === undefined) {
      break;
    }
    const how = stop.forced === true ? ', forced' : '';
    deps.print(`${member.name}  stopping to make room in group "${group}"${how}`);
    const reply = await deps.driver.stop(member, { force });
    if (!reply.ok) {
      throw new Error(`could not stop "${member.name}" to make room: ${reply.detail}`);
    }
    actions = scheduler.step({ kind: 'stop-ended', node: member.name, ok: true }, deps.now());
  }
  throw new Error(`no room could be made in group "${group}"; see svc fleet status`);
}
