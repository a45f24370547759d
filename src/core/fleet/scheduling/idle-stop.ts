/**
 * Idle stop (GUIDE D26 `idleStop`, `keepWarm`), pure: when a node is due to be stopped for doing
 * no work, and whether it may be stopped now.
 *
 * Idle is judged by the node's own `lastActiveAt` (spec §3 activity: every gateway replica's and
 * direct caller's traffic counts, so a replica without traffic never stops a node another one
 * uses), by our own sends and ends (which the node's figure shows only a refresh later), and by
 * when it started (a node just started and never used is not idle since forever). It is stopped
 * only with nothing in flight and nothing waiting for it here, and never while we are waking or
 * stopping it. Keep-warm nodes never are.
 */
import { isQuiet, isUp, lastActivity, type NodeRecord } from './nodes.ts';

/**
 * When the node will be stopped if nothing changes (GUIDE D26 `idleStopAt`), or undefined when it
 * is not running under idle stop.
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

/** Whether the node may be stopped for idleness now; `queued`: requests waiting for it here. */
export function idleStopDue(record: NodeRecord, queued: number, now: number): boolean {
  const at = idleStopAt(record);
  return (
    at !== undefined &&
    at <= now &&
    record.waking === undefined &&
    record.stopping === undefined &&
    isQuiet(record) &&
    queued === 0
  );
}
