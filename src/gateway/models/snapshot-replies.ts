/**
 * The bodies of `/v1/models`, `/v1/models/{id}` and `/v1/fleet` (spec §4.2 rules 1 and 6), from
 * the kept node snapshots, each serialised once per set of snapshots and reused while it holds.
 * `/v1/fleet` also reads the scheduler (docs/design.md D25, D26), which moves between refreshes:
 * what the snapshots fix is serialised once per set, and the scheduler's fields are added on each
 * call.
 */
import type { FleetView, NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import type { SchedulingReadout } from '../metrics/scheduling-readout.ts';
import { served } from './closest-model.ts';
import { fleetBody, fleetParts } from './fleet-reply.ts';
import { listModels, modelReply, modelsReply, wakeableModels } from './model-endpoints.ts';
import { availableText, type ModelEntry } from './models-list.ts';
import { localProblems } from './node-problems.ts';

/** What the replies need of the gateway. */
export interface SnapshotReplies {
  readonly view: FleetView;
  /** When the gateway started (ms): the `created` of models nothing runs yet. */
  readonly startedAt: number;
  /** In flight, queued and idle stop for `/v1/fleet`; absent leaves those fields out. */
  readonly readout?: SchedulingReadout;
}

/** The `/v1/models` entries for one set of kept snapshots, computed once per set. */
function entriesFor(
  deps: SnapshotReplies,
  snapshots: readonly NodeSnapshot[],
): Promise<readonly ModelEntry[]> {
  return deps.view.reply('model-entries', snapshots, (current) =>
    listModels(
      current,
      (node) => deps.view.wakeableModel(node),
      { now: Date.now(), startedAt: deps.startedAt },
      deps.view.fleet.variants,
    ),
  );
}

/** `/v1/models/{id}`: one entry from the same kept snapshots as the list. */
export async function modelEntry(deps: SnapshotReplies, id: string): Promise<string> {
  return modelReply(await entriesFor(deps, await deps.view.all()), id);
}

/** The `/v1/models` body, serialised once per set of snapshots and reused while it holds. */
export async function models(deps: SnapshotReplies): Promise<string> {
  const snapshots = await deps.view.all();
  return deps.view.reply('models', snapshots, async (current) =>
    modelsReply(await entriesFor(deps, current)),
  );
}

export async function topology(deps: SnapshotReplies): Promise<string> {
  const snapshots = await deps.view.all();
  const parts = await deps.view.reply('fleet', snapshots, async (current) =>
    fleetParts(
      deps.view.fleet,
      current,
      await wakeableModels(current, (node) => deps.view.wakeableModel(node)),
      Date.now(),
      await localProblems(
        current.map((snapshot) => snapshot.node),
        (node) => deps.view.source(node),
      ),
    ),
  );
  return fleetBody(parts, snapshots, deps.readout);
}

/**
 * What a caller may use instead of a model it may not (docs/design.md D19): the list, and the
 * names.
 */
export interface Available {
  readonly text: string;
  /** The names a request may use now, for "did you mean" (closest-model.ts). */
  readonly served: readonly string[];
}

/**
 * What a caller may use instead, as a refusal lists it (docs/design.md D19), from each node's last
 * snapshot: a refusal never waits for a node that has not answered again.
 */
export async function availableNow(view: FleetView): Promise<Available> {
  const snapshots = view.fleet.nodes.flatMap((node) => {
    const last = view.states.last(node);
    return last === undefined ? [] : [last];
  });
  const now = Date.now();
  const entries = await listModels(
    snapshots,
    (node) => view.wakeableModel(node),
    { now, startedAt: now },
    view.fleet.variants,
  );
  return { text: availableText(entries), served: served(entries) };
}
