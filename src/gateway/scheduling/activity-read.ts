/**
 * A fresh reading of a node's activity for idle stop (core/fleet/scheduling/nodes/idle-stop.ts): its
 * metrics, whose read feeds its record the way a sampler tick does (spec §3), so every request
 * before the read shows in `lastActiveAt`, whatever the node's sampling interval.
 */
import type { NodeDriver } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { ActivityReading } from '../../core/fleet/scheduling/types.ts';

/** The reading, asked at `askedAt`; undefined when the node did not answer. */
export async function readActivity(
  driver: Pick<NodeDriver, 'stats'>,
  node: FleetNode,
  askedAt: number,
): Promise<ActivityReading | undefined> {
  const reply = await driver.stats(node);
  if (!reply.ok) {
    return undefined;
  }
  const text = reply.value.lastActiveAt;
  const lastActiveAt = text === undefined ? Number.NaN : Date.parse(text);
  return { askedAt, ...(Number.isFinite(lastActiveAt) ? { lastActiveAt } : {}) };
}
