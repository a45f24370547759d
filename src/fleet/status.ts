/**
 * `svc fleet status [node…]`: one row per node, whatever state it is in. A node that does not
 * answer, or whose own configuration keeps it from being asked (an unset token variable), is a
 * row saying so, never a failure of the command: status always exits 0, as the original did.
 * Problems that would only fail a start (an unset
 * engine key variable, a missing Svcfile source) are listed under the table.
 */
import type { NodeDriver, NodeOutcome, NodeStatus } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
import { mapBounded } from '../core/fleet/state/call-limiter.ts';
import { NODE_STATES_DEFAULTS } from '../core/fleet/state/node-snapshot.ts';
import { futureOnly } from '../core/remote/replies.ts';
import { startProblems, unreachableByConfig } from './select.ts';
import { table } from './table.ts';

export type StatusOutcome = 'ok' | NodeOutcome;

export interface StatusRow {
  readonly node: string;
  readonly outcome: StatusOutcome;
  readonly status?: NodeStatus;
  readonly error?: string;
  /** What would fail a start of this node (its configuration, not its state). */
  readonly problems?: readonly string[];
}

export interface StatusDeps {
  readonly driver: Pick<NodeDriver, 'status'>;
  /** Why the node's Svcfile source is unusable, if it is (load-fleet.ts sourceProblem). */
  readonly sourceProblem: (node: FleetNode) => Promise<string | undefined>;
}

export async function fleetStatus(
  fleet: Fleet,
  nodes: readonly FleetNode[],
  deps: StatusDeps,
): Promise<StatusRow[]> {
  // The same fan-out bound as the gateway's, so a fleet of thousands stays within ulimit -n.
  return mapBounded(nodes, NODE_STATES_DEFAULTS.concurrency, async (node): Promise<StatusRow> => {
    const source = await deps.sourceProblem(node);
    const problems = [...startProblems(node, fleet), ...(source === undefined ? [] : [source])];
    const extra = problems.length === 0 ? {} : { problems };
    const blocked = unreachableByConfig(node, fleet);
    if (blocked !== undefined) {
      return { node: node.name, outcome: 'config-error', error: blocked, ...extra };
    }
    const reply = await deps.driver.status(node);
    return reply.ok
      ? { node: node.name, outcome: 'ok', status: reply.value, ...extra }
      : { node: node.name, outcome: reply.outcome, error: reply.detail, ...extra };
  });
}

/** What a node serves; a remote environment's retention deadline while it is ahead (spec §2.4). */
function servingText(status: NodeStatus): string {
  const serving = status.servedName ?? status.model ?? '';
  const until = futureOnly(status.retainUntil, Date.now());
  const retained = until === undefined ? '' : `kept until ${until}`;
  return [serving, retained].filter((part) => part !== '').join('  ');
}

/** The human form: NODE STATE SERVING LAST ACTIVE, then one note per configuration problem. */
export function statusText(rows: readonly StatusRow[]): string {
  const lines = rows.map((row) =>
    row.status === undefined
      ? { cells: [row.node, row.outcome], note: row.error ?? '' }
      : [row.node, row.status.state, servingText(row.status), row.status.lastActiveAt ?? ''],
  );
  const notes = rows.flatMap((row) =>
    (row.problems ?? []).map((problem) => `note: ${row.node}: ${problem}`),
  );
  return `${[table([['NODE', 'STATE', 'SERVING', 'LAST ACTIVE'], ...lines]), ...notes].join('\n')}\n`;
}
