/**
 * Affinity that knows where a prompt cache survives (docs/design.md D32, D25 `affinity`), pure.
 * An affinity entry names the node whose engine holds a conversation's prefix. A node that keeps
 * its cache (`keepsCache` in its view) still holds it after an idle stop or a swap: its entries are
 * kept, and a wake for a waiting request goes to that node first, so the resumed conversation
 * lands where its cache is restored. Any other stop loses the prefix, and so do a forced stop (it
 * saves nothing), a crash (the view no longer says it keeps its cache) and a start whose restore
 * brought no slot back (`cacheRestored: 0`): the node's entries are forgotten then.
 */
import type { NodeView } from '../types.ts';
import type { AffinityMemory } from './affinity.ts';

const UP = new Set<NodeView['state']>(['running', 'starting', 'stopping']);

/** A node's view changed from `before` to `after`: forgets its entries if its cache was lost. */
export function forgetLostCache(
  memory: AffinityMemory,
  before: NodeView | undefined,
  after: NodeView,
): void {
  const wentDown = before !== undefined && UP.has(before.state) && !UP.has(after.state);
  const restoredNothing = after.cacheRestored === 0 && before?.cacheRestored !== 0;
  if ((wentDown && after.keepsCache !== true) || restoredNothing) {
    memory.forgetNode(after.name);
  }
}

/**
 * The stopped node holding the waiting conversation's cache, if one keeps it: the wake tried
 * first (wakes.ts candidates).
 */
export function cacheHolder(
  affinityNode: string | undefined,
  byName: ReadonlyMap<string, { readonly view?: NodeView | undefined }>,
): string | undefined {
  return affinityNode !== undefined && byName.get(affinityNode)?.view?.keepsCache === true
    ? affinityNode
    : undefined;
}
