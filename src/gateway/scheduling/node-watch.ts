/**
 * Nodes under idle stop or keep-warm are watched even while no request comes (the node states
 * rest when the gateway is idle), so an idle node is let go and a keep-warm node started on time.
 */
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { type LoopTimers } from './loop-contract.ts';

/** How often a node under idle stop or keep-warm is asked while no request comes, at most. */
const WATCH_MAX_MS = 10_000;
const WATCH_MIN_MS = 500;

interface Watched {
  readonly name: string;
  readonly keepWarm: boolean;
  readonly idleStopMs?: number;
}

/**
 * Asks the nodes under idle stop or keep-warm at a period that fits their settings: a quarter of
 * the shortest idle stop, between WATCH_MIN_MS and WATCH_MAX_MS. Answers how to stop watching.
 */
export function watchNodes(
  settings: readonly Watched[],
  nodes: ReadonlyMap<string, FleetNode>,
  refresh: (node: FleetNode) => void,
  timers: Pick<LoopTimers, 'after'>,
): () => void {
  const watched = settings.filter((node) => node.keepWarm || node.idleStopMs !== undefined);
  if (watched.length === 0) {
    return () => undefined;
  }
  const shortest = Math.min(...watched.map((node) => node.idleStopMs ?? WATCH_MAX_MS * 4));
  const period = Math.min(WATCH_MAX_MS, Math.max(WATCH_MIN_MS, Math.floor(shortest / 4)));
  let cancel: () => void = () => undefined;
  const ask = (): void => {
    for (const { name } of watched) {
      const node = nodes.get(name);
      if (node !== undefined) {
        refresh(node);
      }
    }
    cancel = timers.after(period, ask);
  };
  ask();
  return () => {
    cancel();
  };
}
