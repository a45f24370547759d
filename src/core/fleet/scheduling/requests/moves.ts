/**
 * A request in flight that the gateway sent on to another node (docs/design.md D30 `failed`: its
 * chosen node failed before the first byte, and the request is retried once on the fallback).
 * The ledger's in-flight count follows it: off the node that failed, whose slot is free again at
 * once, and onto the node now answering, where it counts against that node's `slots` like any
 * request there (docs/design.md D25 `inFlight`). The stop refusals (docs/design.md D28), `/v1/fleet`
 * and `/metrics` read that one count, so each says where the request runs now.
 */
import type { Ledger } from '../ledger.ts';
import type { RequestId } from '../types.ts';
import { peakSent } from './slots.ts';

/**
 * Moves the request's count from its node to `node`. A request not in flight here (ended, or
 * never dispatched), a move to the node it already runs on, or to a node the fleet does not
 * name, changes nothing: the request stays counted where it was until its `end`.
 */
export function moveRunning(books: Ledger, id: RequestId, node: string, now: number): void {
  const running = books.running.get(id);
  const to = books.byName.get(node);
  if (running === undefined || to === undefined || running.node === to) {
    return;
  }
  const from = running.node;
  books.changed(from);
  from.inFlight -= 1;
  from.frees.add(now);
  books.changed(to);
  to.inFlight += 1;
  peakSent(to.peak, to.inFlight);
  to.ownActivityAt = now;
  books.running.set(id, { ...running, node: to });
}
