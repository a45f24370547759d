/**
 * `svc fleet start` of a group member (docs/design.md D33): through the gateway the fleet file
 * names, with
 * `--force` as `?force=true`; with none named, or one that does not answer, through the scheduler's
 * own decision from the members' status: an idle member past its residency is stopped first, a
 * busy one is named in the refusal, and `--force` stops it anyway. A recording driver stands in for
 * the daemons; the built CLI against a real gateway is test/e2e/gateway-group-starts.e2e.test.ts.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../test/support/project-files/fleet-node.ts';
import type { DeployConfig } from '../core/contract/schemas.ts';
import type {
  GatewayNodeAct,
  NodeDriver,
  NodeReply,
  NodeStatus,
} from '../core/fleet/drivers/node-driver.ts';
import type { Fleet } from '../core/fleet/file/fleet-file.ts';
import { fleetAct } from './start-stop.ts';

const CONFIG: DeployConfig = { runner: 'llamacpp', modelId: '/m.gguf' };

const CODER = daemonNode('coder', { group: 'gpu' });
const FLEET: Fleet = {
  path: '/f/fleet.yaml',
  nodes: [daemonNode('chat', { group: 'gpu' }), CODER],
  groups: new Map([['gpu', { max: 1, minResidencyMs: 30_000 }]]),
};

const idle: NodeReply<NodeStatus> = { ok: true, value: { state: 'idle', version: 'dev' } };

/** chat runs (ready, up an hour) with `busy` requests in its engine; coder is idle. */
function daemons(busy: number) {
  const calls: string[] = [];
  const states = new Map<string, NodeReply<NodeStatus>>([
    [
      'chat',
      {
        ok: true,
        value: { state: 'running', version: 'dev', ready: 'ready', uptimeSeconds: 3_600, busy },
      },
    ],
    ['coder', idle],
  ]);
  const driver: Pick<NodeDriver, 'status' | 'wakeSource' | 'start' | 'stop'> = {
    status: (node) => Promise.resolve(states.get(node.name) ?? idle),
    wakeSource: () => Promise.resolve({ source: '/f/coder.svc', config: CONFIG }),
    start: (node) => {
      calls.push(`start ${node.name}`);
      return Promise.resolve({ ok: true, value: { state: 'running', version: 'dev' } });
    },
    stop: (node) => {
      calls.push(`stop ${node.name}`);
      states.set(node.name, idle);
      return Promise.resolve(idle);
    },
  };
  return { driver, calls };
}

function startCoder(driver: ReturnType<typeof daemons>['driver'], extra = {}) {
  const lines: string[] = [];
  const run = fleetAct('start', FLEET, [CODER], {
    driver,
    print: (line) => lines.push(line),
    ...extra,
  });
  return run.then((results) => ({ results, lines }));
}

describe('svc fleet start of a group member with no gateway named', () => {
  it('stops the idle member first, then starts the one asked for', async () => {
    const { driver, calls } = daemons(0);
    const { results, lines } = await startCoder(driver);
    expect(calls).toEqual(['stop chat', 'start coder']);
    expect(lines).toContain('chat  stopping to make room in group "gpu"');
    expect(results).toEqual([
      { node: 'coder', outcome: 'ok', state: 'running', source: '/f/coder.svc' },
    ]);
  });

  it('refuses while the member holding the group is busy, naming it; --force stops it', async () => {
    const { driver, calls } = daemons(1);
    const { results } = await startCoder(driver);
    expect(calls).toEqual([]);
    expect(results[0]?.error).toBe(
      'cannot start "coder": its group "gpu" runs at most 1 member and is held by "chat": it has 1 request in flight and 0 queued; start it once they end, or start it anyway with --force, which stops "chat"',
    );
    const forced = await startCoder(driver, { force: true });
    expect(calls).toEqual(['stop chat', 'start coder']);
    expect(forced.lines).toContain('chat  stopping to make room in group "gpu", forced');
  });
});

describe('svc fleet start of a group member with a gateway named', () => {
  it('goes through the gateway, forced when asked, and starts nothing itself', async () => {
    const { driver, calls } = daemons(1);
    const asked: string[] = [];
    const gatewayAct: GatewayNodeAct = (node, action, force) => {
      asked.push(`${action} ${node.name}${force ? ' force' : ''}`);
      return Promise.resolve({ ok: true, value: { state: 'running', version: 'dev' } });
    };
    const { results } = await startCoder(driver, { gatewayAct, force: true });
    expect(asked).toEqual(['start coder force']);
    expect(calls).toEqual([]);
    expect(results[0]).toMatchObject({ outcome: 'ok', state: 'running' });
  });

  it("passes on the gateway's refusal, and decides here when the gateway does not answer", async () => {
    const { driver, calls } = daemons(0);
    const refusing: GatewayNodeAct = () =>
      Promise.resolve({ ok: false, outcome: 'failed', detail: 'HTTP 409: cannot start "coder"' });
    expect((await startCoder(driver, { gatewayAct: refusing })).results[0]).toMatchObject({
      outcome: 'failed',
      error: 'HTTP 409: cannot start "coder"',
    });
    const down: GatewayNodeAct = () =>
      Promise.resolve({ ok: false, outcome: 'unreachable', detail: 'the gateway is down' });
    const { lines } = await startCoder(driver, { gatewayAct: down });
    expect(lines[1]).toBe('coder: the gateway is down; making room in its group here');
    expect(calls).toEqual(['stop chat', 'start coder']);
  });
});
