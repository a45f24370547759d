/**
 * Whether a running node's engine answers to a model (spec §4.2 rule 1): by served name or model
 * id, only while it runs. Which node a request goes to is the scheduler's (docs/design.md D33).
 */
import { describe, expect, it } from 'vitest';

import {
  MODEL,
  node,
  running,
  SERVED,
} from '../../../../test/support/scheduling/route-snapshots.ts';
import type { FleetNode } from '../file/fleet-file.ts';
import type { NodeSnapshot } from '../state/node-snapshot.ts';
import { serves } from './engine-target.ts';

function unreachable(target: FleetNode, detail = 'connect ECONNREFUSED'): NodeSnapshot {
  return { node: target, ok: false, outcome: 'unreachable', detail };
}

describe('serves', () => {
  const a = node('a');

  it.each([
    ['its served name', SERVED, true],
    ['its model id', MODEL, true],
    ['another name', 'other', false],
    ['a name differing in case', 'CHAT', false],
    ['a prefix of its name', 'cha', false],
  ])('answers for %s: %s', (_name, model, expected) => {
    expect(serves(running(a), model)).toBe(expected);
  });

  it('answers for the model id when no served name is reported', () => {
    expect(serves(running(a, { servedName: undefined }), MODEL)).toBe(true);
  });

  it.each(['idle', 'stopped', 'crashed'] as const)(
    'never answers for a %s node, even one naming the model',
    (state) => {
      expect(serves(running(a, { state }), SERVED)).toBe(false);
      expect(serves(running(a, { state }), MODEL)).toBe(false);
    },
  );

  it('never answers for a node that did not reply', () => {
    expect(serves(unreachable(a), SERVED)).toBe(false);
  });
});
