/**
 * docs/design.md D31 in /v1/models: a node's aliases listed beside its served name, running or
 * asleep; an `unlisted` node's names and the variants built on them left out; a variant listed in
 * its model's state.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import { modelEntries } from './models-list.ts';

const clock = { now: 1_800_000_000_000, startedAt: 1_799_999_000_000 };

const snap = (
  name: string,
  state: string,
  names: { aliases?: string[]; unlisted?: true },
): NodeSnapshot => ({
  node: { ...daemonNode(name, { host: 'h' }), ...names },
  ok: true,
  status: { state, version: 'dev', servedName: `${name}-served`, ready: 'ready' },
});

describe('modelEntries with aliases, unlisted nodes and variants', () => {
  it('lists aliases and variants, and hides an unlisted node and its variants', () => {
    const snapshots = [
      snap('a', 'running', { aliases: ['gpt-4o'] }),
      snap('b', 'stopped', { aliases: ['whisper-1'] }),
      snap('c', 'running', { aliases: ['secret'], unlisted: true }),
    ];
    const variants = [
      { name: 'fast', model: 'gpt-4o', set: { max_tokens: 1 } },
      { name: 'hidden-fast', model: 'secret' },
      { name: 'nowhere', model: 'no-such-model' },
    ];
    const entries = modelEntries(snapshots, new Map([['b', 'b-served']]), clock, variants);
    expect(entries.map((entry) => [entry.id, entry.svc.state, entry.svc.nodes])).toEqual([
      ['a-served', 'running', ['a']],
      ['gpt-4o', 'running', ['a']],
      ['b-served', 'asleep', ['b']],
      ['whisper-1', 'asleep', ['b']],
      ['fast', 'running', ['a']],
    ]);
  });
});
