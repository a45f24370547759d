/**
 * `svc fleet status [node…]`: one row per node, whatever state it is in. A node that does not
 * answer, or whose own configuration keeps it from being asked (an unset token variable), is a
 * row saying so, never a failure of the command: status always exits 0, as the original did.
 * Problems that would only fail a start (an unset
 * engine key variable, a missing Svcfile source) are listed under the table. A running node's
 * busy/slots and each node's group (docs/design.md D25, D26) show where known; what only the
 * gateway knows (its queue, each node's idle-stop time) shows when the fleet's gateway answers
 * (gateway-readout.ts). An upstream node's row says its kind and the names it serves, from the
 * fleet file, and never its key (docs/design.md D30).
 */
import type { NodeDriver, NodeOutcome, NodeStatus } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
import { mapBounded } from '../core/fleet/state/call-limiter.ts';
import { capacityOf, capacityText, declaredGroup } from '../core/fleet/state/capacity.ts';
import { NODE_STATES_DEFAULTS } from '../core/fleet/state/node-snapshot.ts';
import { futureOnly } from '../core/remote/replies.ts';
import type { GatewayAnswer } from './gateway-readout.ts';
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
  /** docs/design.md D26: as the fleet file declares it. */
  readonly group?: string;
  /** The gateway's requests on the node, when the gateway answered (docs/design.md D25). */
  readonly inFlight?: number;
  /** When the gateway will stop the node for idleness, RFC 3339 (docs/design.md D26). */
  readonly idleStopAt?: string;
  /** docs/design.md D30: an upstream node's kind, and the names it serves (no URL, no key). */
  readonly kind?: 'upstream';
  readonly models?: readonly string[];
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
    const group = declaredGroup(node);
    const extra = {
      ...(problems.length === 0 ? {} : { problems }),
      ...(group === undefined ? {} : { group }),
      ...(node.kind === 'upstream' ? { kind: node.kind, models: Object.keys(node.models) } : {}),
    };
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

/**
 * What a node serves (an upstream node: every name it lists); a remote environment's retention
 * deadline while it is ahead (spec §2.4).
 */
function servingText(row: StatusRow): string {
  const status = row.status;
  if (status === undefined) {
    return '';
  }
  if (row.models !== undefined) {
    return row.models.join(', ');
  }
  const serving = status.servedName ?? status.model ?? '';
  const until = futureOnly(status.retainUntil, Date.now());
  const retained = until === undefined ? '' : `kept until ${until}`;
  return [serving, retained].filter((part) => part !== '').join('  ');
}

/** Each row with what the gateway said of its node; the rows as they were without an answer. */
export function withGateway(
  rows: readonly StatusRow[],
  answer: GatewayAnswer | undefined,
): StatusRow[] {
  if (answer?.ok !== true) {
    return [...rows];
  }
  return rows.map((row) => {
    const node = answer.nodes.get(row.node);
    const problems = [...(row.problems ?? []), ...(node?.problems ?? [])];
    return {
      ...row,
      // A local node's Svcfile is read by its gateway: what it found wrong, as a start problem.
      ...(problems.length === 0 ? {} : { problems }),
      ...(node?.inFlight === undefined ? {} : { inFlight: node.inFlight }),
      ...(node?.idleStopAt === undefined ? {} : { idleStopAt: node.idleStopAt }),
    };
  });
}

/** `busy/slots` of a running node, where it reports them. */
function busyText(row: StatusRow): string {
  return row.status?.state === 'running' ? capacityText(capacityOf(row.status)) : '';
}

/**
 * The lines under the table that the gateway's answer adds: its queue, or why it is not shown.
 * A gateway that does not answer at all is said once, with the local nodes that run inside it.
 */
function gatewayLines(answer: GatewayAnswer | undefined, locals: readonly string[]): string[] {
  if (answer === undefined) {
    return [];
  }
  if (!answer.ok) {
    if (answer.silent === undefined) {
      return [`note: the gateway (${answer.name}) did not answer: ${answer.detail}`];
    }
    const inside =
      locals.length === 0
        ? ''
        : `: it runs the local nodes ${locals.join(', ')}; start it with svc up beside the fleet file`;
    return [`note: no gateway answers at ${answer.silent.url} (${answer.silent.reason})${inside}`];
  }
  const queued = Object.entries(answer.queued).map(([model, count]) => `${model} ${count}`);
  return queued.length === 0
    ? []
    : [`queued at the gateway (${answer.name}): ${queued.join(', ')}`];
}

/**
 * The human form: NODE STATE [KIND] SERVING [BUSY] [GROUP] LAST ACTIVE [IDLE STOP], each bracketed column
 * only when some row has something in it; then the gateway's queue, and a note per configuration
 * problem.
 */
export function statusText(
  rows: readonly StatusRow[],
  gateway?: GatewayAnswer,
  locals: ReadonlySet<string> = new Set(),
): string {
  const columns: { title: string; cell: (row: StatusRow) => string }[] = [
    { title: 'KIND', cell: (row) => row.kind ?? '' },
    { title: 'SERVING', cell: servingText },
    { title: 'BUSY', cell: busyText },
    { title: 'GROUP', cell: (row) => row.group ?? '' },
    { title: 'LAST ACTIVE', cell: (row) => row.status?.lastActiveAt ?? '' },
    { title: 'IDLE STOP', cell: (row) => row.idleStopAt ?? '' },
  ];
  const optional = new Set(['KIND', 'BUSY', 'GROUP', 'IDLE STOP']);
  const shown = columns.filter(
    (column) => !optional.has(column.title) || rows.some((row) => column.cell(row) !== ''),
  );
  // A local node is reached through its gateway: when none answers, the note under the table
  // says so once instead of on every local node's row.
  const silent = gateway?.ok === false && gateway.silent !== undefined;
  const quiet = (row: StatusRow): boolean =>
    silent && locals.has(row.node) && row.outcome === 'unreachable';
  const lines = rows.map((row) =>
    row.status === undefined
      ? { cells: [row.node, row.outcome], note: quiet(row) ? '' : (row.error ?? '') }
      : [row.node, row.status.state, ...shown.map((column) => column.cell(row))],
  );
  const notes = rows.flatMap((row) =>
    (row.problems ?? []).map((problem) => `note: ${row.node}: ${problem}`),
  );
  const header = ['NODE', 'STATE', ...shown.map((column) => column.title)];
  const shownLocals = rows.filter((row) => locals.has(row.node)).map((row) => row.node);
  return `${[table([header, ...lines]), ...gatewayLines(gateway, shownLocals), ...notes].join('\n')}\n`;
}
