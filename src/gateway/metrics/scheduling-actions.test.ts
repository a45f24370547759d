import { describe, expect, it } from 'vitest';

import { type ActionCounters, countAction } from './scheduling-actions.ts';

function recorder(): { counters: ActionCounters; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    counters: {
      queueWaited: (seconds) => seen.push(`waited ${seconds}`),
      rejected: (reason) => seen.push(`rejected ${reason}`),
      scaleOutWake: (model) => seen.push(`scale-out ${model}`),
      idleStopped: (node) => seen.push(`idle ${node}`),
      swapped: (group) => seen.push(`swap ${group}`),
      fellBack: (model, reason) => seen.push(`fallback ${model} ${reason}`),
    },
  };
}

describe('countAction', () => {
  it('observes a wait only for requests that waited, dispatched or refused', () => {
    const { counters, seen } = recorder();
    countAction(counters, { kind: 'dispatch', id: 1, model: 'm', node: 'a', waitedMs: 0 });
    countAction(counters, { kind: 'dispatch', id: 2, model: 'm', node: 'a', waitedMs: 1_500 });
    countAction(counters, { kind: 'reject', id: 3, model: 'm', reason: 'queue_full', waitedMs: 0 });
    countAction(counters, {
      kind: 'reject',
      id: 4,
      model: 'm',
      reason: 'queue_timeout',
      waitedMs: 120_000,
    });
    expect(seen).toEqual([
      'waited 1.5',
      'rejected queue_full',
      'rejected queue_timeout',
      'waited 120',
    ]);
  });

  it('counts scale-out wakes, idle stops and swaps, and nothing for other wakes', () => {
    const { counters, seen } = recorder();
    countAction(counters, { kind: 'wake', node: 'a', model: 'm', cause: 'demand' });
    countAction(counters, { kind: 'wake', node: 'b', model: 'm', cause: 'scale-out' });
    countAction(counters, { kind: 'wake', node: 'c', model: 'm', cause: 'keep-warm' });
    countAction(counters, { kind: 'stop', node: 'a', reason: 'idle' });
    countAction(counters, { kind: 'stop', node: 'b', reason: 'swap', group: 'gpu' });
    expect(seen).toEqual(['scale-out m', 'idle a', 'swap gpu']);
  });

  it('counts a dispatch to a fallback by model and reason (docs/design.md D30)', () => {
    const { counters, seen } = recorder();
    countAction(counters, { kind: 'dispatch', id: 1, model: 'm', node: 'up', waitedMs: 0 });
    countAction(counters, {
      kind: 'dispatch',
      id: 2,
      model: 'm',
      node: 'up',
      waitedMs: 0,
      fallback: 'waking',
    });
    countAction(counters, {
      kind: 'dispatch',
      id: 3,
      model: 'n',
      node: 'up',
      waitedMs: 0,
      fallback: 'queueFull',
    });
    expect(seen).toEqual(['fallback m waking', 'fallback n queueFull']);
  });
});
