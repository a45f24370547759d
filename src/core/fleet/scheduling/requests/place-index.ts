/**
 * Placement without weighing every node, pure: the same choice as `place` (placement.ts), kept
 * as the nodes change. Weighing them all cost 220–490 µs per request for a model served by
 * 10,000 nodes (bench/scheduler/scheduler-cost.ts). Per model, the nodes that take another
 * request of ours sit in two heaps (lazy-heap.ts), those that look free counting others' and
 * those that do not, each ordered by `prefer` then file order; a node the ledger changes is
 * marked and its entries renewed at the next placement, so a request costs O(log n). The
 * affinity node is looked up.
 */
import type { Preference } from '../../file/fleet-file.ts';
import { LazyHeap, Stamps } from '../lazy-heap.ts';
import { type NodeRecord, readyFor } from '../nodes/nodes.ts';
import { activity } from './placement.ts';
import { hasFreeSlot, seemsFree } from './slots.ts';

interface Entry {
  readonly record: NodeRecord;
  readonly stamp: number;
  /** Activity when entered, never-active as -Infinity (placement.ts compareByPreference). */
  readonly at: number;
}

interface Heaps {
  readonly free: LazyHeap<Entry>;
  readonly full: LazyHeap<Entry>;
  /** How many entries a rebuild made: the heaps are rebuilt once outdated ones outgrow them. */
  built: number;
}

export class PlaceIndex {
  private readonly stamps = new Stamps<NodeRecord>();
  private readonly byModel = new Map<string, Heaps>();
  private readonly marked = new Set<NodeRecord>();

  constructor(
    private readonly prefer: Preference,
    private readonly byName: ReadonlyMap<string, NodeRecord>,
    /** The nodes whose view serves a model (the ledger's index). */
    private readonly serving: (model: string) => Iterable<NodeRecord>,
  ) {}

  /** The node changed: its entries are renewed at the next placement. */
  mark(record: NodeRecord): void {
    this.marked.add(record);
  }

  /** Every node is read afresh at the next placement. */
  markAll(): void {
    this.byModel.clear();
    this.marked.clear();
  }

  /** What `place(serving(model), model, prefer, affinityNode)` answers. */
  place(model: string, affinityNode: string | undefined): NodeRecord | undefined {
    for (const record of this.marked) {
      this.renew(record);
    }
    this.marked.clear();
    let heaps = this.byModel.get(model);
    if (heaps === undefined || heaps.free.size + heaps.full.size > 4 * heaps.built + 64) {
      heaps = this.build(model);
    }
    const affine = affinityNode === undefined ? undefined : this.byName.get(affinityNode);
    const affineTakes = affine !== undefined && readyFor(affine, model) && hasFreeSlot(affine);
    if (affineTakes && seemsFree(affine)) {
      return affine;
    }
    // Where none looks free, the engine holding the prompt is worth its queue.
    return heaps.free.top()?.record ?? (affineTakes ? affine : heaps.full.top()?.record);
  }

  private build(model: string): Heaps {
    const before = (a: Entry, b: Entry): number => {
      if (a.at !== b.at) {
        const idleFirst = a.at < b.at ? -1 : 1;
        return this.prefer === 'idle' ? idleFirst : -idleFirst;
      }
      return a.record.order - b.record.order;
    };
    const current = (entry: Entry): boolean => this.stamps.current(entry.record, entry.stamp);
    const heaps: Heaps = {
      free: new LazyHeap(before, current),
      full: new LazyHeap(before, current),
      built: 0,
    };
    this.byModel.set(model, heaps);
    for (const record of this.serving(model)) {
      this.renew(record);
    }
    heaps.built = heaps.free.size + heaps.full.size;
    return heaps;
  }

  /** Outdates the node's entries and enters it afresh for every model it serves. */
  private renew(record: NodeRecord): void {
    const stamp = this.stamps.renew(record);
    const at = activity(record) ?? Number.NEGATIVE_INFINITY;
    for (const model of record.view?.serves ?? []) {
      const heaps = this.byModel.get(model);
      if (heaps !== undefined && readyFor(record, model) && hasFreeSlot(record)) {
        (seemsFree(record) ? heaps.free : heaps.full).push({ record, stamp, at });
      }
    }
  }
}
