/**
 * An operator's start (docs/design.md D33) through the scheduler on an injected clock: in a group
 * with room it starts at once; in a full group it swaps an idle member out first (a stop, then the
 * start once the stop has ended), is refused naming a busy or resident member and why, or with
 * `force` stops that member anyway; a node already up is started as asked with nothing to make room
 * for; and a request that comes while a start waits does not take the room the start made.
 */
import { describe, expect, it } from 'vitest';

import {
  brief,
  Harness,
  running,
  stopped,
} from '../../../../../test/support/scheduling/scheduling.ts';

const GROUP = { max: 1, minResidencyMs: 60_000 };

/** a runs model-a (since `aSince`), b and d are stopped; one GPU between them; c in no group. */
function gpuBox(aSince = -120_000): Harness {
  return new Harness(
    {
      nodes: [
        { name: 'a', group: 'gpu' },
        { name: 'b', group: 'gpu' },
        { name: 'c' },
        { name: 'd', group: 'gpu' },
      ],
      groups: new Map([['gpu', GROUP]]),
    },
    [
      running('a', { serves: ['model-a'], wakes: ['model-a'], runningSince: aSince, slots: 1 }),
      stopped('b', { wakes: ['model-b'] }),
      stopped('c', { wakes: ['model-c'] }),
      stopped('d', { wakes: ['model-d'] }),
    ],
  );
}

describe('an operator start', () => {
  it('starts a node in no group, or in a group with room, at once', () => {
    const h = gpuBox();
    expect(h.start(1, 'c')).toEqual([{ kind: 'start', id: 1, node: 'c' }]);
    h.now = 1;
    expect(brief(h.views(stopped('a', { wakes: ['model-a'] })))).toEqual([]);
    expect(brief(h.start(2, 'b'))).toEqual(['start 2 b']);
  });

  it('swaps an idle member out first, and starts once its stop has ended', () => {
    const h = gpuBox();
    expect(h.start(1, 'b')).toEqual([{ kind: 'stop', node: 'a', reason: 'swap', group: 'gpu' }]);
    expect(h.advance(1_000)).toEqual([]);
    expect(brief(h.stopEnded('a'))).toEqual(['start 1 b']);
    // b now holds the group while it starts: a request for model-a waits rather than wake a.
    expect(brief(h.arrive(7, { model: 'model-a' }))).toEqual([]);
    expect(brief(h.wakeReady(running('b', { serves: ['model-b'] })))).toEqual([]);
  });

  it('is refused naming a busy member and why, and a forced one stops it anyway', () => {
    const h = gpuBox();
    expect(brief(h.arrive(1, { model: 'model-a' }))).toEqual(['dispatch 1→a']);
    expect(h.start(1, 'b')).toEqual([
      {
        kind: 'start-refused',
        id: 1,
        node: 'b',
        group: 'gpu',
        holder: 'a',
        why: 'busy',
        inFlight: 1,
        queued: 0,
      },
    ]);
    expect(h.start(2, 'b', true)).toEqual([
      { kind: 'stop', node: 'a', reason: 'swap', group: 'gpu', forced: true },
    ]);
    expect(brief(h.stopEnded('a'))).toEqual(['start 2 b']);
  });

  it('is refused while the member has not run its minimum residency', () => {
    const h = gpuBox(-20_000);
    expect(brief(h.start(1, 'b'))).toEqual(['start-refused 1 b: a residency']);
    expect(h.log.at(-1)).toMatchObject({ why: 'residency', remainingMs: 40_000 });
    h.advance(40_000);
    expect(brief(h.start(2, 'b'))).toEqual(['stop a (swap)']);
  });

  it('never force-stops a member we are waking: it names it as starting', () => {
    const h = gpuBox();
    h.now = 1;
    h.views(stopped('a', { wakes: ['model-a'] }));
    expect(brief(h.arrive(1, { model: 'model-a' }))).toEqual(['wake a model-a (demand)']);
    expect(brief(h.start(1, 'b', true))).toEqual(['start-refused 1 b: a starting']);
  });

  it('starts a node already up as asked, booking nothing', () => {
    const h = gpuBox();
    expect(h.start(1, 'a')).toEqual([{ kind: 'start', id: 1, node: 'a', already: true }]);
  });

  it('keeps the room a swap made for the start from a request that came meanwhile', () => {
    const h = gpuBox();
    expect(brief(h.start(1, 'b'))).toEqual(['stop a (swap)']);
    // A request for model-d while a stops: it waits for the group, and b starts first.
    expect(brief(h.arrive(1, { model: 'model-d' }))).toEqual([]);
    expect(brief(h.stopEnded('a'))).toEqual(['start 1 b']);
  });

  it('waits for a stop of ours on the node itself before starting it', () => {
    const h = new Harness({ nodes: [{ name: 'a', idleStopMs: 1_000 }] });
    // Its fresh reads find it idle since 0 (idle-stop.ts), so the stop falls due at 1 s.
    h.reads = () => 0;
    h.views(running('a', { lastActiveAt: 0 }));
    const stop = brief(h.advance(1_000)).filter((line) => !line.startsWith('read '));
    expect(stop).toEqual(['stop a (idle)']);
    expect(h.start(1, 'a')).toEqual([]);
    expect(brief(h.stopEnded('a'))).toEqual(['start 1 a']);
  });
});
