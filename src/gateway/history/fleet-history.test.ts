/**
 * The charts' history (fleet-history.ts) on an injected clock and timer: tokens/s from the counted
 * completion tokens between samples, in flight and queued from the readout, the longest wait per
 * interval, swaps and the holder per group, the 10-minute window, and the caller's models only.
 */
import { describe, expect, it } from 'vitest';

import type { NodeSnapshot } from '../../core/fleet/state/node-snapshot.ts';
import { FleetHistory } from './fleet-history.ts';

interface Reply {
  nodes: { name: string; samples: { t: number; inFlight: number; tokensPerSecond: number }[] }[];
  models: { model: string; samples: { t: number; queued: number; waitMs: number }[] }[];
  groups: { name: string; members: string[]; holder: string | null; swaps: unknown[] }[];
}

function setUp() {
  const clock = { now: 1_000_000 };
  const tokens = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const queued = new Map<string, number>();
  let tick: (() => void) | undefined;
  let stopped = false;
  const snapshots: NodeSnapshot[] = [];
  const history = new FleetHistory({
    nodes: [{ name: 'a', group: 'gpu' }, { name: 'b', group: 'gpu' }, { name: 'c' }],
    readout: { inFlight: (node) => inFlight.get(node) ?? 0, queued: () => queued },
    tokensOf: (node) => tokens.get(node) ?? 0,
    snapshots: () => snapshots,
    now: () => clock.now,
    every: (ms, run) => {
      expect(ms).toBe(5_000);
      tick = run;
      return () => {
        stopped = true;
      };
    },
  });
  const step = (): void => {
    clock.now += 5_000;
    tick?.();
  };
  const read = (allows: (model: string) => boolean = () => true): Reply =>
    JSON.parse(history.reply(allows)) as Reply;
  return {
    history,
    clock,
    tokens,
    inFlight,
    queued,
    snapshots,
    step,
    read,
    stopped: () => stopped,
  };
}

describe('FleetHistory', () => {
  it('samples tokens/s and in flight per node, queue and wait per model, at once and each tick', () => {
    const { history, tokens, inFlight, queued, step, read } = setUp();
    tokens.set('a', 100);
    inFlight.set('a', 2);
    queued.set('chat', 3);
    history.observe({ kind: 'dispatch', id: 1, model: 'chat', node: 'a', waitedMs: 1200 });
    history.observe({ kind: 'dispatch', id: 2, model: 'chat', node: 'a', waitedMs: 400 });
    step();
    const reply = read();
    expect(reply.nodes.find((n) => n.name === 'a')?.samples).toEqual([
      { t: 1000, inFlight: 0, tokensPerSecond: 0 },
      { t: 1005, inFlight: 2, tokensPerSecond: 20 },
    ]);
    expect(reply.models).toEqual([
      { model: 'chat', samples: [{ t: 1005, queued: 3, waitMs: 1200 }] },
    ]);
    queued.delete('chat');
    step();
    expect(read().models[0]?.samples.at(-1)).toEqual({ t: 1010, queued: 0, waitMs: 0 });
  });

  it('adds no model for a refusal of a name nothing placed, and shows a caller only its models', () => {
    const { history, queued, step, read } = setUp();
    history.observe({ kind: 'reject', id: 1, model: 'nope', reason: 'no_node', waitedMs: 0 });
    queued.set('chat', 1);
    queued.set('secret', 1);
    step();
    expect(read().models.map((m) => m.model)).toEqual(['chat', 'secret']);
    expect(read((model) => model === 'chat').models.map((m) => m.model)).toEqual(['chat']);
  });

  it("keeps each group's last swaps, newest first, and names the member holding it", () => {
    const { history, snapshots, read } = setUp();
    history.observe({ kind: 'stop', node: 'a', reason: 'swap', group: 'gpu' });
    history.observe({ kind: 'stop', node: 'c', reason: 'idle' });
    history.observe({ kind: 'stop', node: 'b', reason: 'swap', group: 'gpu' });
    snapshots.push({
      node: { name: 'a' } as never,
      ok: true,
      status: { state: 'running', version: 'dev' },
    });
    expect(read().groups).toEqual([
      {
        name: 'gpu',
        members: ['a', 'b'],
        holder: 'a',
        swaps: [
          { at: new Date(1_000_000).toISOString(), stopped: 'b' },
          { at: new Date(1_000_000).toISOString(), stopped: 'a' },
        ],
      },
    ]);
  });

  it('keeps 10 minutes of samples and stops its timer when closed', () => {
    const { history, step, read, stopped } = setUp();
    for (let i = 0; i < 130; i += 1) {
      step();
    }
    const samples = read().nodes[0]?.samples ?? [];
    expect(samples.length).toBe(121);
    expect((samples.at(-1)?.t ?? 0) - (samples[0]?.t ?? 0)).toBe(600);
    history.close();
    expect(stopped()).toBe(true);
  });
});
