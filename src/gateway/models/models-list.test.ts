/** /v1/models entries (spec §4.2 rule 1): created, owned_by the node, and the svc state extension. */
import { describe, expect, it } from 'vitest';

import {
  daemonNode,
  localNode,
  upstreamNode,
} from '../../../test/support/project-files/fleet-node.ts';
import type { StatusResponse } from '../../core/contract/schemas.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import { availableText, LISTED_IN_MESSAGES, modelEntries } from './models-list.ts';

const node = (name: string): FleetNode => daemonNode(name, { host: 'h' });
const snap = (name: string, status: Partial<StatusResponse>): NodeSnapshot => ({
  node: node(name),
  ok: true,
  status: { state: 'running', version: 'dev', ...status },
});
const clock = { now: 1_800_000_000_000, startedAt: 1_799_999_000_000 };

describe('modelEntries', () => {
  it('lists running, loading and asleep models once each, owned by their node', () => {
    const snapshots = [
      snap('a', { servedName: 'chat', model: 'org/chat', ready: 'ready', uptimeSeconds: 60 }),
      snap('b', { model: 'org/load', ready: 'not-ready', uptimeSeconds: 1 }),
      snap('c', { state: 'stopped' }),
      snap('d', { state: 'stopped' }),
    ];
    const wakeable = new Map([
      ['c', 'sleepy'],
      ['d', 'chat'],
    ]);
    expect(modelEntries(snapshots, wakeable, clock)).toEqual([
      {
        id: 'chat',
        object: 'model',
        created: 1_800_000_000 - 60,
        owned_by: 'a',
        svc: { state: 'running', nodes: ['a'] },
      },
      {
        id: 'org/load',
        object: 'model',
        created: 1_800_000_000 - 1,
        owned_by: 'b',
        svc: { state: 'loading', nodes: ['b'] },
      },
      {
        id: 'sleepy',
        object: 'model',
        created: 1_799_999_000,
        owned_by: 'c',
        svc: { state: 'asleep', nodes: ['c'] },
      },
    ]);
  });

  it('gives integer created seconds and an empty list for an empty fleet', () => {
    expect(modelEntries([], new Map(), { now: 1_500.7, startedAt: 999.9 })).toEqual([]);
    const [entry] = modelEntries([snap('c', { state: 'stopped' })], new Map([['c', 'm']]), {
      now: 5_500,
      startedAt: 2_700,
    });
    expect(entry?.created).toBe(2);
  });

  it('leaves out an engine bound to loopback that no engine override reaches (docs/design.md D15)', () => {
    const engine = { port: 8080, loopbackOnly: true };
    const overridden: NodeSnapshot = {
      node: daemonNode('b', { engine: { host: '127.0.0.1' } }),
      ok: true,
      status: { state: 'running', version: 'dev', model: 'reached', engine },
    };
    const entries = modelEntries(
      [snap('a', { model: 'unreachable', engine }), overridden],
      new Map(),
      clock,
    );
    expect(entries.map((entry) => entry.id)).toEqual(['reached']);
  });

  it("lists a local node's loopback engine: it runs beside the gateway (docs/design.md D27)", () => {
    const local: NodeSnapshot = {
      node: localNode('l'),
      ok: true,
      status: {
        state: 'running',
        version: 'dev',
        model: 'beside',
        engine: { port: 8080, loopbackOnly: true },
      },
    };
    expect(modelEntries([local], new Map(), clock).map((entry) => entry.id)).toEqual(['beside']);
  });
});

describe('modelEntries and upstream nodes (docs/design.md D30)', () => {
  it('lists every name an answering upstream node serves, beside local ones, and none of an unreachable one', () => {
    const hosted = upstreamNode('hosted', { models: { big: 'v/big', qwen: 'v/qwen' } });
    const snapshots: NodeSnapshot[] = [
      {
        node: node('gpu'),
        ok: true,
        status: { state: 'running', servedName: 'qwen', version: 'dev' },
      },
      { node: hosted, ok: true, status: { state: 'running', runner: 'upstream' } },
      {
        node: { ...hosted, name: 'gone', models: { lost: 'x' } },
        ok: false,
        outcome: 'unreachable',
        detail: 'refused',
      },
    ];
    const entries = modelEntries(snapshots, new Map(), { now: 10_000, startedAt: 0 });
    expect(entries.map((entry) => [entry.id, entry.svc.nodes])).toEqual([
      ['qwen', ['gpu', 'hosted']],
      ['big', ['hosted']],
    ]);
  });
});

describe('availableText', () => {
  it('caps the list and says how many more there are', () => {
    const wakeable = new Map(
      Array.from({ length: LISTED_IN_MESSAGES + 3 }, (_, index) => [`n${index}`, `m${index}`]),
    );
    const snapshots = [...wakeable.keys()].map((name) => snap(name, { state: 'stopped' }));
    const text = availableText(modelEntries(snapshots, wakeable, clock));
    expect(text).toMatch(/^available models: m0, m1, .*m19 \(and 3 more\)$/);
    expect(availableText([])).toContain('no model is available');
  });
});
