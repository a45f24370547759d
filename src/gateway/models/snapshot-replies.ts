/**
 * The bodies of `/v1/models`, `/v1/models/{id}` and `/v1/fleet` (spec §4.2 rules 1 and 6), from
 * the kept node snapshots, each serialised once per set of snapshots and reused while it holds.
 */
import type { FleetView, NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import { futureOnly } from '../../core/remote/replies.ts';
import { listModels, modelReply, modelsReply } from './model-endpoints.ts';
import type { ModelEntry } from './models-list.ts';

/** What the replies need of the gateway. */
export interface SnapshotReplies {
  readonly view: FleetView;
  /** When the gateway started (ms): the `created` of models nothing runs yet. */
  readonly startedAt: number;
}

/** The `/v1/models` entries for one set of kept snapshots, computed once per set. */
function entriesFor(
  deps: SnapshotReplies,
  snapshots: readonly NodeSnapshot[],
): Promise<readonly ModelEntry[]> {
  return deps.view.reply('model-entries', snapshots, (current) =>
    listModels(current, (node) => deps.view.wakeableModel(node), {
      now: Date.now(),
      startedAt: deps.startedAt,
    }),
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
  return deps.view.reply('fleet', snapshots, (current) => fleetReply(deps, current));
}

async function fleetReply(
  deps: SnapshotReplies,
  snapshots: readonly NodeSnapshot[],
): Promise<string> {
  const { fleet } = deps.view;
  const nodes = await Promise.all(
    snapshots.map(async (snapshot) => {
      const base = {
        name: snapshot.node.name,
        kind: snapshot.node.kind,
        ...(snapshot.node.tags ? { tags: snapshot.node.tags } : {}),
      };
      if (!snapshot.ok) {
        return { ...base, state: snapshot.outcome, detail: snapshot.detail };
      }
      const { status } = snapshot;
      const retainUntil = futureOnly(status.retainUntil, Date.now());
      const wakeable =
        status.state === 'running' ? undefined : await deps.view.wakeableModel(snapshot.node);
      return {
        ...base,
        state: status.state,
        ...(status.model === undefined ? {} : { model: status.model }),
        ...(status.servedName === undefined ? {} : { servedName: status.servedName }),
        ...(status.ready === undefined ? {} : { ready: status.ready }),
        ...(status.lastActiveAt === undefined ? {} : { lastActiveAt: status.lastActiveAt }),
        // spec §2.4: a remote environment's retention deadline, only while in the future.
        ...(retainUntil === undefined ? {} : { retainUntil }),
        ...(wakeable === undefined ? {} : { wakeableModel: wakeable }),
      };
    }),
  );
  return JSON.stringify({
    // spec §4.2 rule 6: the file's settings ride along, each absent where the file declares none.
    ...(fleet.wake === undefined ? {} : { wake: fleet.wake === 'on' }),
    ...(fleet.prefer === undefined ? {} : { prefer: fleet.prefer }),
    ...(fleet.concurrency === undefined ? {} : { concurrency: fleet.concurrency }),
    nodes,
  });
}
