/** A node snapshot as the scheduler sees it: states, names served, counts, times. */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../../test/support/project-files/fleet-node.ts';
import type { NodeSnapshot } from '../state/node-snapshot.ts';
import { viewOfSnapshot, wakeFactsFrom } from './view-of-snapshot.ts';

const node = daemonNode('a');
/** What a node that answered reports (the drivers' NodeStatus, reached through the snapshot). */
type NodeStatus = Extract<NodeSnapshot, { ok: true }>['status'];

const ok = (status: NodeStatus): Parameters<typeof viewOfSnapshot>[0] => ({
  node,
  ok: true,
  status,
});

describe('viewOfSnapshot', () => {
  it('maps a running node with its names, counts and times', () => {
    const status: NodeStatus = {
      state: 'running',
      model: 'org/m',
      servedName: 'chat',
      ready: 'ready',
      uptimeSeconds: 30,
      lastActiveAt: '1970-01-01T00:01:00.000Z',
      slots: 4,
      busy: 1,
    };
    expect(viewOfSnapshot(ok(status), 100_000, { wakes: ['chat'], warm: true })).toEqual({
      name: 'a',
      observedAt: 100_000,
      state: 'running',
      ready: true,
      serves: ['chat', 'org/m'],
      slots: 4,
      busy: 1,
      lastActiveAt: 60_000,
      runningSince: 70_000,
      wakes: ['chat'],
      warm: true,
    });
  });

  it('drops counts a node should not report: zero slots, a fraction, a stopped engine', () => {
    expect(viewOfSnapshot(ok({ state: 'running', slots: 0, busy: 0.5 }), 0)).not.toHaveProperty(
      'slots',
    );
    expect(viewOfSnapshot(ok({ state: 'running', slots: 0, busy: 0.5 }), 0)).not.toHaveProperty(
      'busy',
    );
    const stopped = viewOfSnapshot(ok({ state: 'stopped', slots: 2, busy: 1 }), 0);
    expect(stopped).not.toHaveProperty('slots');
    expect(stopped).not.toHaveProperty('busy');
  });

  it("caps the engine's slots at the node's own, and takes them where the engine reports none", () => {
    const capped = (slots: number, reported: number | undefined): number | undefined =>
      viewOfSnapshot(
        {
          node: { ...node, slots },
          ok: true,
          status: { state: 'running', ...(reported === undefined ? {} : { slots: reported }) },
        },
        0,
      ).slots;
    expect(capped(2, 8)).toBe(2);
    expect(capped(4, 1)).toBe(1);
    expect(capped(3, undefined)).toBe(3);
    expect(capped(3, 0)).toBe(3);
    const stopped = viewOfSnapshot(
      { node: { ...node, slots: 2 }, ok: true, status: { state: 'stopped' } },
      0,
    );
    expect(stopped).not.toHaveProperty('slots');
  });

  it('serves nothing from a loopback-only engine, and reads loading as not ready', () => {
    const view = viewOfSnapshot(
      ok({
        state: 'running',
        model: 'm',
        ready: 'not-ready',
        engine: { port: 1, loopbackOnly: true },
      }),
      0,
    );
    expect(view).toMatchObject({ state: 'running', ready: false, serves: [] });
  });

  it.each([
    ['stopped', 'stopped'],
    ['idle', 'stopped'],
    ['crashed', 'stopped'],
    ['undeployed', 'stopped'],
    ['pending', 'starting'],
    ['stopping', 'stopping'],
  ])('reads %s as %s', (state, condition) => {
    expect(viewOfSnapshot(ok({ state }), 0).state).toBe(condition);
  });

  it('marks a node that did not answer unreachable, keeping what a wake would start', () => {
    const silent = { node, ok: false as const, outcome: 'unreachable' as const, detail: 'refused' };
    expect(viewOfSnapshot(silent, 5, { wakes: ['m'] })).toEqual({
      name: 'a',
      observedAt: 5,
      state: 'unreachable',
      ready: false,
      serves: [],
      detail: 'unreachable: refused',
      wakes: ['m'],
    });
  });

  it('says a keepCache node keeps its cache unless it crashed, and what its start restored', () => {
    const keeping = { ...node, keepCache: true };
    const of = (status: NodeStatus) => viewOfSnapshot({ node: keeping, ok: true, status }, 0);
    const restore = { slots: 2, tokens: 900, ms: 40 };
    expect(of({ state: 'running', lastCacheRestore: restore })).toMatchObject({
      keepsCache: true,
      cacheRestored: 2,
    });
    expect(of({ state: 'stopped' })).toMatchObject({ keepsCache: true });
    expect(of({ state: 'crashed' })).not.toHaveProperty('keepsCache');
    expect(viewOfSnapshot(ok({ state: 'running' }), 0)).not.toHaveProperty('keepsCache');
  });

  it('serves and wakes for the aliases of a node beside its served name (docs/design.md D31)', () => {
    const named = { ...node, aliases: ['gpt-4o', 'qwen'] };
    const running = viewOfSnapshot(
      { node: named, ok: true, status: { state: 'running', model: 'org/m', servedName: 'chat' } },
      0,
    );
    expect(running.serves).toEqual(['chat', 'org/m', 'gpt-4o', 'qwen']);
    const config = { runner: 'command', servedModelName: 'chat' } as const;
    expect(wakeFactsFrom(named, undefined, { config }).wakes).toEqual(['chat', 'gpt-4o', 'qwen']);
    expect(wakeFactsFrom({ ...named, wake: 'off' }, undefined, { config }).wakeOff).toEqual([
      'chat',
      'gpt-4o',
      'qwen',
    ]);
  });
});
