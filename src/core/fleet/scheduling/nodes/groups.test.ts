/**
 * Nodes that share a GPU (docs/design.md D26 `groups`), through the scheduler on an injected clock:
 * a swap stops the least recently active idle member past its residency and waits for the stop
 * before the start; a busy or resident member holds the group, and a wait past the wake timeout is
 * refused naming it and why; a stream is never cut; never more members up than the group allows.
 */
import { describe, expect, it } from 'vitest';

import {
  brief,
  Harness,
  running,
  stopped,
} from '../../../../../test/support/scheduling/scheduling.ts';

const GROUP = { max: 1, minResidencyMs: 60_000 };

/** a runs model-a (since `aSince`), b and c are stopped; one GPU between them. */
function gpuBox(extra: { wakeTimeoutMs?: number } = {}, aSince = -120_000): Harness {
  return new Harness(
    {
      nodes: ['a', 'b', 'c'].map((name) => ({ name, group: 'gpu' })),
      groups: new Map([['gpu', GROUP]]),
      ...extra,
    },
    [
      running('a', { serves: ['model-a'], wakes: ['model-a'], runningSince: aSince, slots: 1 }),
      stopped('b', { wakes: ['model-b'] }),
      stopped('c', { wakes: ['model-c'] }),
    ],
  );
}

describe('groups', () => {
  it('stops the idle member, waits for the stop to end, then wakes the one asked for', () => {
    const h = gpuBox();
    expect(brief(h.arrive(1, { model: 'model-b' }))).toEqual(['stop a (swap)']);
    expect(h.log.at(-1)).toEqual({ kind: 'stop', node: 'a', reason: 'swap', group: 'gpu' });
    expect(h.advance(1_000)).toEqual([]);
    expect(brief(h.stopEnded('a'))).toEqual(['wake b model-b (demand)']);
    expect(brief(h.wakeReady(running('b', { serves: ['model-b'] })))).toEqual(['dispatch 1→b']);
  });

  it('never cuts a stream: the swap waits for it to end', () => {
    const h = gpuBox();
    expect(brief(h.arrive(1, { model: 'model-a', streaming: true }))).toEqual(['dispatch 1→a']);
    expect(h.arrive(2, { model: 'model-b' })).toEqual([]);
    h.now = 5_000;
    expect(brief(h.end(1))).toEqual(['stop a (swap)']);
  });

  it('serves what waits for the member before evicting it', () => {
    const h = gpuBox();
    h.arrive(1, { model: 'model-a' });
    h.arrive(2, { model: 'model-a' });
    h.arrive(3, { model: 'model-b' });
    expect(brief(h.end(1))).toEqual(['dispatch 2→a']);
    expect(brief(h.end(2))).toEqual(['stop a (swap)']);
  });

  it('lets a member stay its minimum residency, and swaps when that ends', () => {
    const h = gpuBox({}, -10_000);
    expect(h.arrive(1, { model: 'model-b' })).toEqual([]);
    expect(h.scheduler.nextDueAt(h.now)).toBe(50_000);
    expect(h.advance(49_999)).toEqual([]);
    expect(brief(h.advance(1))).toEqual(['stop a (swap)']);
  });

  it('refuses past the wake timeout naming the group, the holder and why', () => {
    const h = gpuBox({ wakeTimeoutMs: 30_000 });
    h.arrive(1, { model: 'model-a' });
    h.arrive(2, { model: 'model-b' });
    expect(h.advance(30_000)).toEqual([
      {
        kind: 'reject',
        id: 2,
        model: 'model-b',
        reason: 'group_busy',
        retryAfterSeconds: 5,
        waitedMs: 30_000,
        detail: { group: 'gpu', holder: 'a', why: 'busy', inFlight: 1, queued: 0 },
      },
    ]);
    const resident = gpuBox({ wakeTimeoutMs: 30_000 }, -20_000);
    resident.arrive(1, { model: 'model-b' });
    expect(resident.advance(30_000)).toMatchObject([
      { reason: 'group_busy', retryAfterSeconds: 10, detail: { why: 'residency' } },
    ]);
  });

  it('makes room one stop at a time and starts one member at a time', () => {
    const h = gpuBox();
    expect(
      brief([...h.arrive(1, { model: 'model-b' }), ...h.arrive(2, { model: 'model-c' })]),
    ).toEqual(['stop a (swap)']);
    // The longest waiting goes first; the other waits for b, which is starting.
    expect(brief(h.stopEnded('a'))).toEqual(['wake b model-b (demand)']);
    expect(brief(h.wakeReady(running('b', { serves: ['model-b'] })))).toEqual(['dispatch 1→b']);
    h.now = 70_000;
    expect(brief(h.end(1))).toEqual(['stop b (swap)']);
    expect(brief(h.stopEnded('b'))).toEqual(['wake c model-c (demand)']);
  });

  it('counts a member whose wake failed as up until a later view says it is not', () => {
    const h = gpuBox();
    h.arrive(1, { model: 'model-b' });
    h.stopEnded('a');
    h.now = 1_000;
    // b timed out loading: it may hold the GPU still, so c is not started beside it.
    h.wakeFailed('b', 'did not answer within 5m');
    expect(brief(h.arrive(2, { model: 'model-c' }))).toEqual([]);
    h.now = 2_000;
    expect(brief(h.views(stopped('b', { wakes: ['model-b'] })))).toEqual([
      'wake c model-c (demand)',
    ]);
  });

  it('never starts a member past the group size, even when a stop fails', () => {
    const h = gpuBox();
    h.arrive(1, { model: 'model-b' });
    expect(brief(h.stopEnded('a', false))).toEqual([]);
    // a is still up; only a fresh view lets a swap pick it again.
    h.now = 1;
    expect(brief(h.views(running('a', { serves: ['model-a'], runningSince: -120_000 })))).toEqual([
      'stop a (swap)',
    ]);
  });

  it('a request for the member being swapped out waits for it to come back, never a 404', () => {
    const h = gpuBox({}, -120_000);
    h.views(running('a', { serves: ['model-a'], wakes: ['model-a'], runningSince: -120_000 }));
    expect(brief(h.arrive(1, { model: 'model-b' }))).toEqual(['stop a (swap)']);
    // model-a while a's stop is under way: it waits (no refusal, no second start of a).
    expect(brief(h.arrive(2, { model: 'model-a' }))).toEqual([]);
    expect(h.scheduler.waiting(2, h.now)).toMatchObject({ model: 'model-a' });
  });
});
