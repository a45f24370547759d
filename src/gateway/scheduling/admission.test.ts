/**
 * Admission (admission.ts) over the real loop and scheduler: the fast path and a request behind
 * others already waiting for its model are answered in the caller's turn; a request that may have
 * something to learn first (the first to wait, a node not yet answered, a wake fact being read)
 * goes through freshen, and either way the queue keeps its order.
 */
import { describe, expect, it } from 'vitest';

import {
  flush,
  harness,
  MODEL,
  track,
  view,
} from '../../../test/support/scheduling/schedule-loop-harness.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { type AdmissionDeps, admitRequest } from './admission.ts';
import type { Admission } from './loop-contract.ts';

function admitting(state: { settled: boolean; pending: FleetNode[] }) {
  const h = harness({ nodes: [{ name: 'a' }] });
  h.loop.views([view('a', { slots: 1 })]);
  const deps: AdmissionDeps = {
    states: {
      use: () => undefined,
      current: () => ({ snapshots: [], pending: state.pending }),
      last: () => undefined,
      until: () => Promise.resolve({ snapshots: [], pending: [] }),
    },
    scheduler: h.loop.scheduler,
    loop: h.loop,
    views: { isSettled: () => state.settled, settled: () => Promise.resolve() },
    now: h.timers.now,
  };
  const admit = () => admitRequest(deps, { model: MODEL, streaming: false });
  return { h, admit };
}

describe('admission', () => {
  it('answers the fast path and a request behind others waiting in the caller turn, in order', async () => {
    const { h, admit } = admitting({ settled: true, pending: [] });
    const first = admit();
    expect(first).not.toBeInstanceOf(Promise);
    // The first to wait may have something to learn: it goes through freshen.
    const second = admit();
    expect(second).toBeInstanceOf(Promise);
    const waiting = [track(await second)];
    const third = admit();
    expect(third).not.toBeInstanceOf(Promise);
    expect('waiting' in (third as Admission)).toBe(true);
    waiting.push(track(third as Admission));
    h.loop.end((first as Admission).id);
    await flush();
    expect(waiting.map((state) => state.dispatch?.node)).toEqual(['a', undefined]);
    h.loop.end((await second).id);
    await flush();
    expect(waiting.map((state) => state.dispatch?.node)).toEqual(['a', 'a']);
  });

  it('goes through freshen while a wake fact is read or a node has not answered', async () => {
    const state = { settled: false, pending: [] as FleetNode[] };
    const { admit } = admitting(state);
    await admit();
    await admit();
    expect(admit()).toBeInstanceOf(Promise);
    state.settled = true;
    state.pending = [{ name: 'b' } as FleetNode];
    expect(admit()).toBeInstanceOf(Promise);
    state.pending = [];
    expect(admit()).not.toBeInstanceOf(Promise);
  });
});
