/**
 * Exclusive and persistent groups (docs/design.md D31) through the scheduler on an injected clock:
 * a request, an operator's start and keep-warm alike stop the running members of every
 * non-persistent other group before an exclusive member starts; a persistent group and nodes in no
 * group are left alone; a busy member is waited for (a request) or refuses the start naming it
 * (an operator's start, unless forced); a plain group's start stops a running exclusive member.
 */
import { describe, expect, it } from 'vitest';

import {
  brief,
  Harness,
  running,
  stopped,
} from '../../../../../test/support/scheduling/scheduling.ts';
import type { GroupSettings } from '../types.ts';

const RESIDENCY = { max: 1, minResidencyMs: 0 };

/** big (exclusive) stopped; chat (plain) and embed (persistent) running; tool in no group. */
function box(big: Partial<GroupSettings> = { exclusive: true }, keepWarm = false): Harness {
  return new Harness(
    {
      nodes: [
        { name: 'big', group: 'big', keepWarm },
        { name: 'chat', group: 'plain' },
        { name: 'embed', group: 'keep' },
        { name: 'tool' },
      ],
      groups: new Map<string, GroupSettings>([
        ['big', { ...RESIDENCY, ...big }],
        ['plain', RESIDENCY],
        ['keep', { ...RESIDENCY, persistent: true }],
      ]),
    },
    [
      stopped('big', { wakes: ['model-big'] }),
      running('chat', { serves: ['model-chat'], wakes: ['model-chat'], slots: 1 }),
      running('embed', { serves: ['model-embed'], wakes: ['model-embed'], slots: 1 }),
      running('tool', { serves: ['model-tool'], wakes: ['model-tool'], slots: 1 }),
    ],
  );
}

describe('an exclusive group', () => {
  it("stops the other groups' idle members for a request, leaving persistent and ungrouped", () => {
    const h = box();
    expect(h.arrive(1, { model: 'model-big' })).toEqual([
      { kind: 'stop', node: 'chat', reason: 'swap', group: 'big' },
    ]);
    expect(h.scheduler.route('model-big', h.now).stops).toEqual([]);
    expect(brief(h.stopEnded('chat'))).toEqual(['wake big model-big (demand)']);
  });

  it('names the nodes an exclusive start would stop in its route (docs/design.md D33)', () => {
    const h = box();
    const route = h.scheduler.route('model-big', h.now);
    expect(route).toMatchObject({ action: 'swap', node: 'big', stops: ['chat'] });
    expect(route.nodes.find((node) => node.name === 'chat')?.verdict).toBe('stop');
    expect(route.nodes.find((node) => node.name === 'embed')?.verdict).not.toBe('stop');
  });

  it('waits for a busy member to drain, then stops it', () => {
    const h = box();
    expect(brief(h.arrive(1, { model: 'model-chat' }))).toEqual(['dispatch 1→chat']);
    expect(brief(h.arrive(2, { model: 'model-big' }))).toEqual([]);
    expect(h.scheduler.route('model-big', h.now)).toMatchObject({ action: 'queue', stops: [] });
    expect(brief(h.end(1))).toEqual(['stop chat (swap)']);
    expect(brief(h.stopEnded('chat'))).toEqual(['wake big model-big (demand)']);
  });

  it("refuses an operator's start naming a busy member, and a forced one stops it", () => {
    const h = box();
    expect(brief(h.arrive(1, { model: 'model-chat' }))).toEqual(['dispatch 1→chat']);
    expect(h.start(1, 'big')).toEqual([
      {
        kind: 'start-refused',
        id: 1,
        node: 'big',
        group: 'plain',
        holder: 'chat',
        why: 'busy',
        inFlight: 1,
        queued: 0,
      },
    ]);
    expect(brief(h.start(2, 'big', true))).toEqual(['stop chat (swap, forced)']);
    expect(brief(h.stopEnded('chat'))).toEqual(['start 2 big']);
  });

  it('clears the others before a keep-warm start, and starts once they have stopped', () => {
    const h = box({ exclusive: true }, true);
    expect(brief(h.log)).toEqual(['stop chat (swap)']);
    expect(brief(h.stopEnded('chat'))).toEqual(['wake big model-big (keep-warm)']);
  });

  it("is stopped by a plain group's start while it runs", () => {
    const h = box();
    h.arrive(1, { model: 'model-big' });
    h.stopEnded('chat');
    h.wakeReady(running('big', { serves: ['model-big'], slots: 1 }));
    h.end(1);
    expect(brief(h.arrive(2, { model: 'model-chat' }))).toEqual(['stop big (swap)']);
    expect(brief(h.stopEnded('big'))).toEqual(['wake chat model-chat (demand)']);
  });

  it('when persistent itself, still clears the others at its start but lets them start beside it', () => {
    const h = box({ exclusive: true, persistent: true });
    expect(brief(h.arrive(1, { model: 'model-big' }))).toEqual(['stop chat (swap)']);
    h.stopEnded('chat');
    h.wakeReady(running('big', { serves: ['model-big'], slots: 1 }));
    expect(brief(h.arrive(2, { model: 'model-chat' }))).toEqual(['wake chat model-chat (demand)']);
  });

  it('stops nothing when no group is exclusive', () => {
    const h = box({});
    expect(brief(h.arrive(1, { model: 'model-big' }))).toEqual(['wake big model-big (demand)']);
  });
});
