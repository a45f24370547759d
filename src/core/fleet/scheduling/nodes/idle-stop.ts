/**
 * Idle stop (docs/design.md D26 `idleStop`, `keepWarm`), pure: when a node is due to be stopped for
 * doing no work, when its activity is to be read afresh, and whether it may be stopped now.
 *
 * docs/design.md D33: idle stop never stops a node another gateway or caller used within its
 * idleStop, whatever the daemon's sampling interval. What is known of its work, and how well:
 * - our own requests: exactly, as they are sent and end (the ledger's `ownActivityAt`);
 * - anyone else's (another replica, a direct caller): only through the node's `lastActiveAt`
 *   (spec §3), which its sampler moves every 15 s and a read of its metrics moves at once (the
 *   read feeds its record as a sample does). A status view's figure may miss up to a tick.
 * So a stop is decided on a fresh read asked once the stop fell due: every request before that
 * read shows in its `lastActiveAt` (the sample that sees a request's counters move, or sees it in
 * flight, is taken after it), so the node is never stopped within idleStop of any. And while
 * nothing of ours runs on it, it is read every ACTIVITY_READ_EVERY_MS: the first read after the
 * last request anyone sent stamps it at most that much late, so the stop comes within that (and
 * the reads' own time) of its due time, never at the next sampler tick.
 *
 * It is stopped only with nothing of ours in flight and nothing waiting for it here, and never
 * while we are waking or stopping it. Keep-warm nodes never are.
 */
import type { ActivityReading } from '../types.ts';
import { isUp, lastActivity, type NodeRecord } from './nodes.ts';

/** How often a quiet node under idle stop is read afresh: the bound on how late its stop comes. */
export const ACTIVITY_READ_EVERY_MS = 1_000;

/**
 * When the node will be stopped if nothing changes (docs/design.md D26 `idleStopAt`), or undefined
 * when it is not running under idle stop.
 */
export function idleStopAt(record: NodeRecord): number | undefined {
  const after = record.settings.idleStopMs;
  // A node still loading its model is at work, however long that takes.
  if (after === undefined || record.settings.keepWarm || !isUp(record) || !record.view?.ready) {
    return undefined;
  }
  const since = lastActivity(record);
  return since === undefined ? undefined : since + after;
}

/** Under idle stop, nothing of ours in it, and nothing we asked of it under way. */
function watched(record: NodeRecord): number | undefined {
  const at = idleStopAt(record);
  return at !== undefined &&
    record.inFlight === 0 &&
    record.waking === undefined &&
    record.stopping === undefined
    ? at
    : undefined;
}

/**
 * When the node's activity is next to be read afresh (a `read` action), or undefined when it is
 * not watched or a read is under way: every ACTIVITY_READ_EVERY_MS, and at once when its stop
 * falls due with no read asked since.
 */
export function activityReadDue(record: NodeRecord): number | undefined {
  const at = watched(record);
  if (at === undefined || record.reading !== undefined) {
    return undefined;
  }
  const tried = record.readTriedAt;
  const next =
    tried === undefined ? (record.view?.observedAt ?? 0) : tried + ACTIVITY_READ_EVERY_MS;
  // Once one was asked since the stop fell due (answered or not), the next waits its turn.
  const asked = tried !== undefined && tried >= at;
  return asked ? next : Math.min(next, at);
}

/** Whether the node may be stopped for idleness now; `queued`: requests waiting for it here. */
export function idleStopDue(record: NodeRecord, queued: number, now: number): boolean {
  const at = watched(record);
  if (at === undefined || at > now || queued > 0) {
    return false;
  }
  const freshAt = record.freshAt;
  // Only a read asked after the stop fell due vouches for everyone's requests until then; it
  // also supersedes an older view's `busy` (a request in the engine is activity at the read).
  if (freshAt === undefined || freshAt < at) {
    return false;
  }
  return record.external === 0 || (record.view?.observedAt ?? 0) <= freshAt;
}

/** A fresh read ended: its reading (a newer one already taken wins), or none when it failed. */
export function takeReading(record: NodeRecord, reading: ActivityReading | undefined): void {
  record.reading = undefined;
  if (reading === undefined || (record.freshAt ?? Number.NEGATIVE_INFINITY) > reading.askedAt) {
    return;
  }
  record.freshAt = reading.askedAt;
  const at = reading.lastActiveAt;
  if (at !== undefined) {
    record.freshActiveAt = Math.max(record.freshActiveAt ?? at, at);
  }
}
