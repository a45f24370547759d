/**
 * One full collection after a large fleet file is loaded. Parsing a 10,000-node file keeps some
 * 50 MB of syntax tree alive for a moment; when V8's first full collection lands inside the
 * parse it sizes the old generation from that peak, and the garbage of the first status round
 * then piles up to about twice that before the next one (RSS 235 MiB at 10,000 nodes, of which
 * 21 MiB live). Collecting once, after the tree is garbage, sizes it from the fleet instead
 * (RSS 150 MiB; docs/benchmarks.md#fleet-scale). Small fleets never pay for it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Below this many nodes the parse is too small to matter. */
export const SETTLE_HEAP_FROM_NODES = 1_000;

export function settleHeap(nodes: number): void {
  if (nodes < SETTLE_HEAP_FROM_NODES) {
    return;
  }
  // `gc` is exposed by a flag only; a fresh context picks the flag up after start-up.
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as unknown;
  if (typeof collect === 'function') {
    (collect as () => void)();
  }
}
