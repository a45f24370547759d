/**
 * The capacity a node reports and the group the fleet file declares for it (docs/design.md D25,
 * D26), read the same way by every reader: `/v1/fleet`, the gateway's metrics, `svc fleet status`
 * and the dashboard. A status or stats reply carries `slots` (the engine's request slots) and
 * `busy` (requests in the engine at its last scrape) only where the daemon knows them; anything
 * else in those fields is unknown, and unknown is absent (spec §4.2 rule 6). Both records are read
 * through narrow local types so a reply from a daemon that predates the fields reads as absent.
 */
import type { FleetNode } from '../file/fleet-file.ts';

/** A node's reported capacity: each field absent when the node does not report it. */
export interface NodeCapacity {
  readonly slots?: number;
  readonly busy?: number;
}

/** A count as a reply may carry it: a whole number ≥ 0, else absent. */
function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/**
 * `slots` and `busy` of a status or stats reply. Zero slots is no capacity anyone could use, so
 * it reads as unknown, as the scheduler reads it (scheduling/view-of-snapshot.ts).
 */
export function capacityOf(reply: object): NodeCapacity {
  const reported = reply as { readonly slots?: unknown; readonly busy?: unknown };
  const slots = countOf(reported.slots);
  const busy = countOf(reported.busy);
  return {
    ...(slots === undefined || slots === 0 ? {} : { slots }),
    ...(busy === undefined ? {} : { busy }),
  };
}

/** `busy/slots` (`1/2`), `?` for the side not reported; empty when neither is. */
export function capacityText({ slots, busy }: NodeCapacity): string {
  if (slots === undefined && busy === undefined) {
    return '';
  }
  return `${busy === undefined ? '?' : String(busy)}/${slots === undefined ? '?' : String(slots)}`;
}

/** The node's `group` as the fleet file declares it (docs/design.md D26), or undefined. */
export function declaredGroup(node: FleetNode): string | undefined {
  const group = (node as { readonly group?: unknown }).group;
  return typeof group === 'string' && group !== '' ? group : undefined;
}
