/**
 * Prompt-cache affinity memory (docs/design.md D25 `affinity`): which node a leading prompt was
 * last sent to, so the next turn of the same conversation goes back to the engine holding its
 * prefix. A fixed number of keys, least recently sent forgotten first: memory stays bounded however
 * many conversations pass. Only a preference: the node must still serve the model and have a free
 * slot.
 */

/** Keys remembered; a key and a node name each, a few hundred kilobytes at most. */
export const AFFINITY_KEYS_KEPT = 4_096;

export class AffinityMemory {
  // A Map iterates in insertion order: re-inserting on each send keeps the oldest first.
  private readonly nodes = new Map<string, string>();

  constructor(private readonly capacity: number = AFFINITY_KEYS_KEPT) {}

  get size(): number {
    return this.nodes.size;
  }

  /** The node the key was last sent to, if it is still remembered. */
  nodeFor(key: string): string | undefined {
    return this.nodes.get(key);
  }

  /** The node lost what it held (kept-affinity.ts): no key leads there any more. */
  forgetNode(node: string): void {
    for (const [key, held] of this.nodes) {
      if (held === node) {
        this.nodes.delete(key);
      }
    }
  }

  /** The key was just sent to `node`: it becomes the most recent. */
  remember(key: string, node: string): void {
    this.nodes.delete(key);
    this.nodes.set(key, node);
    if (this.nodes.size > this.capacity) {
      const oldest = this.nodes.keys().next();
      if (oldest.done !== true) {
        this.nodes.delete(oldest.value);
      }
    }
  }
}
