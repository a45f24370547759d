/**
 * Admission (admission.ts) over the real loop and scheduler: with every node answered and no wake
 * fact being read, an arrival is answered in the caller's turn (placed or queued, in order); while
 * something is still to learn only a placement is, and the rest goes through freshen, as does a
 * refusal for want of a node.
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
  const states = {
    use: () => undefined,
    current: () => ({ snapshots: [], pending: state.pending }),
    last: () => undefined,
    until: () => Promise.resolve({ snapshots: [], pending: [] }),
  };
  const deps: AdmissionDeps = {
    states,
    loop: h.loop,
    views: { isSettled: () => state.settled },
    freshen: {
      states,
      scheduler: h.loop.scheduler,
      settled: () => Promise.resolve(),
      now: h.timers.now,
    },
  };
  const admit = (model = MODEL) => admitRequest(deps, { model, streaming: false });
  return { h, admit };
}

describe('admission', () => {
  it('answers every arrival in the caller turn once every node answered, and keeps the order', async () => {
    const { h, admit } = admitting({ settled: true, pending: [] });
    const first = admit();
    const second = admit();
    const third = admit();
    for (const admission of [first, second, third]) {
      expect(admission).not.toBeInstanceOf(Promise);
    }
    expect('placed' in (first as Admission)).toBe(true);
    const waiting = [track(second as Admission), track(third as Admission)];
    h.loop.end((first as Admission).id);
    await flush();
    expect(waiting.map((state) => state.dispatch?.node)).toEqual(['a', undefined]);
    h.loop.end((second as Admission).id);
    await flush();
    expect(waiting.map((state) => state.dispatch?.node)).toEqual(['a', 'a']);
  });

  it('goes through freshen while a wake fact is read or a node has not answered', () => {
    const state = { settled: false, pending: [] as FleetNode[] };
    const { admit } = admitting(state);
    // A free slot on a ready node places it whatever is still to learn.
    expect(admit()).not.toBeInstanceOf(Promise);
    expect(admit()).toBeInstanceOf(Promise);
    state.settled = true;
    state.pending = [{ name: 'b' } as FleetNode];
    expect(admit()).toBeInstanceOf(Promise);
    state.pending = [];
    expect(admit()).not.toBeInstanceOf(Promise);
  });

  it('leaves a refusal for want of a node to freshen, which asks the silent nodes first', async () => {
    const { admit } = admitting({ settled: true, pending: [] });
    const refused = admit('nothing-serves-this');
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toMatchObject({ action: { reason: 'no_node' } });
  });
});
