/**
 * The nodes whose view serves each model, kept as views change, so placement and the wake plan
 * read only a model's own candidates, never the whole fleet (the cost per request stays flat at
 * any fleet size).
 */
import type { NodeRecord } from '../nodes/nodes.ts';

const NONE: readonly NodeRecord[] = [];

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, index) => name === b[index]);
}

export class ServingIndex {
  private readonly byModel = new Map<string, Set<NodeRecord>>();

  /** The nodes whose view serves `model` (running or not). */
  of(model: string): Iterable<NodeRecord> {
    return this.byModel.get(model) ?? NONE;
  }

  /** The node served `before` and serves `after` now. */
  moved(record: NodeRecord, before: readonly string[], after: readonly string[]): void {
    if (sameNames(before, after)) {
      return;
    }
    for (const model of before) {
      this.byModel.get(model)?.delete(record);
    }
    for (const model of after) {
      let serving = this.byModel.get(model);
      if (serving === undefined) {
        serving = new Set();
        this.byModel.set(model, serving);
      }
      serving.add(record);
    }
  }
}
