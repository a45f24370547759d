/**
 * Through the gateway, svc code takes each running engine's own window (running-windows.ts) over
 * what the Svcfiles say: every node asked through an injected driver, each running engine's
 * `/props` through an injected client; the smallest window per model; nodes that do not run or
 * answer add nothing.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../test/support/project-files/fleet-node.ts';
import type { NodeDriver, NodeReply, NodeStatus } from '../core/fleet/drivers/node-driver.ts';
import type { PropsClient } from './engine-window.ts';
import { runningWindows, withRunning } from './running-windows.ts';

const FROM_PROPS = "n_ctx per slot, from the running engine's GET /props";

function running(servedName: string, port: number): NodeReply<NodeStatus> {
  return {
    ok: true,
    value: {
      state: 'running',
      runner: 'llamacpp',
      servedName,
      version: 'dev',
      engine: { host: '127.0.0.1', port },
    },
  };
}

describe('runningWindows', () => {
  it('takes the smallest running window per model and skips nodes that do not run or answer', async () => {
    const replies: Record<string, NodeReply<NodeStatus>> = {
      a: running('chat', 8001),
      b: running('chat', 8002),
      c: running('code', 8003),
      d: { ok: true, value: { state: 'stopped', version: 'dev' } },
      e: { ok: false, outcome: 'unreachable', detail: 'ECONNREFUSED' },
    };
    const driver: Pick<NodeDriver, 'status'> = {
      status: (node) => Promise.resolve(replies[node.name] as NodeReply<NodeStatus>),
    };
    const windows: Record<string, unknown> = {
      'http://127.0.0.1:8001/props': { default_generation_settings: { n_ctx: 8192 } },
      'http://127.0.0.1:8002/props': { default_generation_settings: { n_ctx: 4096 } },
    };
    const asked: string[] = [];
    const props: PropsClient = (url) => {
      asked.push(url);
      return url in windows ? Promise.resolve(windows[url]) : Promise.reject(new Error('refused'));
    };
    const fleet = {
      path: 'fleet.yaml',
      nodes: ['a', 'b', 'c', 'd', 'e'].map((name) => daemonNode(name, { host: '127.0.0.1' })),
    };
    const found = await runningWindows({ fleet, env: {}, driver, props });
    expect(Object.fromEntries(found)).toEqual({ chat: { context: 4096, contextFrom: FROM_PROPS } });
    expect(asked.sort()).toEqual([
      'http://127.0.0.1:8001/props',
      'http://127.0.0.1:8002/props',
      'http://127.0.0.1:8003/props',
    ]);
  });

  it("puts the engine's window over the Svcfile's and keeps the Svcfile's output cap", () => {
    const running = { context: 1024, contextFrom: FROM_PROPS };
    expect(withRunning({ context: 8192, output: 2000 }, running)).toEqual({
      context: 1024,
      contextFrom: FROM_PROPS,
      output: 2000,
    });
    expect(withRunning(undefined, running)).toEqual(running);
    expect(withRunning({ output: 2000 }, undefined)).toEqual({ output: 2000 });
  });
});
