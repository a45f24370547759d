import { describe, expect, it } from 'vitest';

import { daemonNode, upstreamNode } from '../../../../test/support/project-files/fleet-node.ts';
import type { FleetNode } from '../file/fleet-file.ts';
import { byKind, type NodeDriver, type NodeReply, type NodeStatus } from './node-driver.ts';

function recording(kind: string, calls: string[]): NodeDriver {
  const reply = (state: string): Promise<NodeReply<NodeStatus>> =>
    Promise.resolve({ ok: true, value: { state, version: kind } });
  return {
    status: (node) => {
      calls.push(`${kind}.status ${node.name}`);
      return reply('stopped');
    },
    wakeSource: (node) => {
      calls.push(`${kind}.wakeSource ${node.name}`);
      return Promise.resolve({ source: kind, config: { runner: 'llamacpp' } });
    },
    start: (node) => {
      calls.push(`${kind}.start ${node.name}`);
      return reply('running');
    },
    stop: (node) => {
      calls.push(`${kind}.stop ${node.name}`);
      return reply('stopped');
    },
    stats: (node) => {
      calls.push(`${kind}.stats ${node.name}`);
      return Promise.resolve({ ok: true, value: { state: 'stopped' } });
    },
  };
}

const node: FleetNode = daemonNode('gpu-a');

describe('byKind (docs/design.md D21)', () => {
  it("sends every call to the driver of the node's kind", async () => {
    const calls: string[] = [];
    const driver = byKind({
      daemon: recording('daemon', calls),
      remote: recording('remote', calls),
    });
    await driver.status(node);
    const source = await driver.wakeSource(node);
    await driver.start(node, source);
    await driver.stop(node);
    await driver.stats(node);
    expect(source.source).toBe('daemon');
    expect(calls).toEqual([
      'daemon.status gpu-a',
      'daemon.wakeSource gpu-a',
      'daemon.start gpu-a',
      'daemon.stop gpu-a',
      'daemon.stats gpu-a',
    ]);
  });

  it('answers unsupported for a kind without an engine log, and forwards logs to one with it', async () => {
    const calls: string[] = [];
    const without = byKind({
      daemon: recording('daemon', calls),
      remote: recording('remote', calls),
    });
    expect(await without.logs(node, {})).toMatchObject({ ok: false, outcome: 'unsupported' });
    const withLogs = byKind({
      remote: recording('remote', calls),
      daemon: {
        ...recording('daemon', calls),
        logs: (target, query) => {
          calls.push(`daemon.logs ${target.name} ${String(query.offset)}`);
          return Promise.resolve({
            ok: true,
            value: { content: '', size: 0, nextOffset: 0 },
          });
        },
      },
    });
    await withLogs.logs(node, { offset: 7 });
    expect(calls).toEqual(['daemon.logs gpu-a 7']);
  });
});

describe('byKind and upstream nodes (docs/design.md D30)', () => {
  it('sends an upstream node to the upstream driver, and says so where none was given', async () => {
    const calls: string[] = [];
    const hosted = upstreamNode('hosted');
    const driver = byKind({
      daemon: recording('daemon', calls),
      remote: recording('remote', calls),
      upstream: recording('upstream', calls),
    });
    await driver.status(hosted);
    expect(calls).toEqual(['upstream.status hosted']);
    const none = byKind({ daemon: recording('daemon', calls), remote: recording('remote', calls) });
    expect(await none.status(hosted)).toMatchObject({ ok: false, outcome: 'unsupported' });
  });
});
