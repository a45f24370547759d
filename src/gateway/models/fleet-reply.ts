/**
 * The `/v1/fleet` body (spec §4.2 rule 6), pure: each node's name, kind, tags and state, what a
 * running node serves, readiness, last activity, and for a node not running the model a request
 * would start it with; the file's wake, prefer and concurrency settings, each absent where the
 * file declares none. A node that did not answer stands in its place with the reason.
 */
import type { Fleet } from '../../core/fleet/file/fleet-file.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import { futureOnly } from '../../core/remote/replies.ts';

/** `wakeable` maps a stopped node's name to the model a request would wake it with. */
export function fleetReply(
  fleet: Pick<Fleet, 'wake' | 'prefer' | 'concurrency'>,
  snapshots: readonly NodeSnapshot[],
  wakeable: ReadonlyMap<string, string>,
  now: number,
): Record<string, unknown> {
  const nodes = snapshots.map((snapshot) => {
    const base = {
      name: snapshot.node.name,
      kind: snapshot.node.kind,
      ...(snapshot.node.tags ? { tags: snapshot.node.tags } : {}),
    };
    if (!snapshot.ok) {
      return { ...base, state: snapshot.outcome, detail: snapshot.detail };
    }
    const { status } = snapshot;
    const running = status.state === 'running';
    const retainUntil = futureOnly(status.retainUntil, now);
    const wakeableModel = running ? undefined : wakeable.get(snapshot.node.name);
    return {
      ...base,
      state: status.state,
      // A stopped daemon's status keeps its last model; it serves nothing, and its
      // wakeableModel says what a request would start.
      ...(!running || status.model === undefined ? {} : { model: status.model }),
      ...(!running || status.servedName === undefined ? {} : { servedName: status.servedName }),
      ...(status.ready === undefined ? {} : { ready: status.ready }),
      ...(status.lastActiveAt === undefined ? {} : { lastActiveAt: status.lastActiveAt }),
      // spec §2.4: a remote environment's retention deadline, only while in the future.
      ...(retainUntil === undefined ? {} : { retainUntil }),
      ...(wakeableModel === undefined ? {} : { wakeableModel }),
    };
  });
  return {
    ...(fleet.wake === undefined ? {} : { wake: fleet.wake === 'on' }),
    ...(fleet.prefer === undefined ? {} : { prefer: fleet.prefer }),
    ...(fleet.concurrency === undefined ? {} : { concurrency: fleet.concurrency }),
    nodes,
  };
}
