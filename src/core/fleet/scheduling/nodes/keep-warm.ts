/**
 * Keep-warm (docs/design.md D26 `keepWarm`), pure: a keep-warm node is started when the gateway
 * starts, with the same coalesced start as a wake. Decided once per node, at the first view in
 * which it answers: a node an operator stops later stays stopped until a request wakes it. It is
 * started only when its group has room; keep-warm never evicts another member at start-up.
 */
import { type GroupView, hasSpace } from './groups.ts';
import { type NodeRecord, occupies } from './nodes.ts';

/** Whether the node's keep-warm start is yet to be decided and can be now. */
export function keepWarmPending(record: NodeRecord): boolean {
  return (
    record.settings.keepWarm &&
    !record.warmDecided &&
    record.view !== undefined &&
    record.view.state !== 'unreachable'
  );
}

/** The model to start the node with, or undefined: it is up, not wakeable, or its group is full. */
export function keepWarmModel(
  record: NodeRecord,
  group: GroupView | undefined,
): string | undefined {
  const view = record.view;
  if (view?.state !== 'stopped' || occupies(record) || (group !== undefined && !hasSpace(group))) {
    return undefined;
  }
  return view.wakes?.[0];
}
