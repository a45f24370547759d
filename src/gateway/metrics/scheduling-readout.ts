/**
 * What the gateway's readers (`/v1/fleet`, `/metrics`) ask of the scheduler (docs/design.md D25,
 * D26): this gateway's requests on each node, how many wait for each model, and when an idle node
 * will be stopped. Structural, so the Scheduler itself is one; read only when a reply is built or a
 * scrape collects, never on the request path.
 */
import type { Scheduler } from '../../core/fleet/scheduling/scheduler.ts';

export type SchedulingReadout = Pick<Scheduler, 'inFlight' | 'queued' | 'idleStopAt'>;

const NOTHING_QUEUED: ReadonlyMap<string, number> = new Map();

/**
 * A readout with only the in-flight count (a gateway without a queue or idle stop): nothing
 * waits and nothing is due to stop.
 */
export function inFlightReadout(count: (node: string) => number): SchedulingReadout {
  return {
    inFlight: count,
    queued: () => NOTHING_QUEUED,
    idleStopAt: () => undefined,
  };
}

/** For callers with no scheduler: nothing in flight, nothing waiting, nothing due to stop. */
export const NO_SCHEDULING: SchedulingReadout = inFlightReadout(() => 0);
