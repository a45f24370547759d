/**
 * A node's requests in flight through this gateway, as a refused stop names them (docs/design.md
 * D28 `node_busy`): read from the ledger's own entries, the one in-flight count there is.
 */
import type { Ledger } from '../ledger.ts';

export interface NodeInFlight {
  readonly count: number;
  /** How many of them ask for each model, in the order the models were first seen. */
  readonly models: ReadonlyMap<string, number>;
  /** How long the oldest has run (ms). */
  readonly oldestMs: number;
}

export function inFlightOf(books: Ledger, node: string, now: number): NodeInFlight | undefined {
  const record = books.byName.get(node);
  if (record === undefined || record.inFlight === 0) {
    return undefined;
  }
  const models = new Map<string, number>();
  let oldest = Number.POSITIVE_INFINITY;
  let count = 0;
  for (const running of books.running.values()) {
    if (running.node === record) {
      count += 1;
      models.set(running.model, (models.get(running.model) ?? 0) + 1);
      oldest = Math.min(oldest, running.since);
    }
  }
  return { count, models, oldestMs: Math.max(0, now - oldest) };
}
