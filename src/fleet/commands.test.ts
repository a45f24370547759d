/**
 * The pure and driver-injected parts of `svc fleet`: node selection (unknown names refused with
 * the closest name), per-node configuration problems as rows, idempotent start/stop, and the
 * status table. A recording driver stands in for the nodes; the built CLI against real daemons is
 * test/e2e/fleet-commands.e2e.test.ts.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode, upstreamNode } from '../../test/support/project-files/fleet-node.ts';
import type { DeployConfig, StatusResponse } from '../core/contract/schemas.ts';
import type { NodeDriver, NodeReply, NodeStatus } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
import { selectNodes } from './select.ts';
import { fleetAct } from './start-stop.ts';
import { fleetStatus, type StatusRow, statusText, withGateway } from './status.ts';

const node = daemonNode;

const FLEET: Fleet = {
  path: '/f/fleet.yaml',
  nodes: [
    node('alpha', { tokenEnv: 'A_TOKEN', token: 't' }),
    node('beta'),
    node('gamma', { tokenEnv: 'G_TOKEN' }),
    node('delta', { engineTokenEnv: 'D_KEY' }),
  ],
};

const CONFIG: DeployConfig = { runner: 'llamacpp', modelId: '/m.gguf' };

function status(state: StatusResponse['state'], model?: string): NodeReply<NodeStatus> {
  return {
    ok: true,
    value: { state, version: 'dev', ...(model === undefined ? {} : { model }) },
  };
}

/** A driver whose nodes are in the given states; records every call. */
function recordingDriver(states: Record<string, NodeReply<NodeStatus>>) {
  const calls: string[] = [];
  const driver: Pick<NodeDriver, 'status' | 'wakeSource' | 'start' | 'stop'> = {
    status: (target) => {
      calls.push(`status ${target.name}`);
      return Promise.resolve(states[target.name] ?? status('idle'));
    },
    wakeSource: () => Promise.resolve({ source: '/f/x.svc', config: CONFIG }),
    start: (target) => {
      calls.push(`start ${target.name}`);
      return Promise.resolve(status('running', 'm'));
    },
    stop: (target) => {
      calls.push(`stop ${target.name}`);
      return Promise.resolve(status('stopped'));
    },
  };
  return { driver, calls };
}

describe('selectNodes', () => {
  it('takes every node when none is named (status), and the named ones once, in order', () => {
    expect(selectNodes(FLEET, { names: [] }).map((entry) => entry.name)).toEqual([
      'alpha',
      'beta',
      'gamma',
      'delta',
    ]);
    expect(
      selectNodes(FLEET, { names: ['gamma', 'alpha', 'gamma'] }).map((entry) => entry.name),
    ).toEqual(['gamma', 'alpha']);
  });

  it('refuses an unknown name, naming the closest node and listing them all', () => {
    expect(() => selectNodes(FLEET, { names: ['alpah'] })).toThrow(
      'no node named "alpah" in /f/fleet.yaml: did you mean "alpha"? (nodes: alpha, beta, gamma, delta)',
    );
  });

  it('needs names or --all where the verb acts', () => {
    expect(() => selectNodes(FLEET, { names: [], required: { verb: 'stop' } })).toThrow(
      'name the nodes to stop, or pass --all (nodes: alpha, beta, gamma, delta)',
    );
    expect(selectNodes(FLEET, { names: [], all: true, required: { verb: 'stop' } })).toHaveLength(
      4,
    );
  });
});

describe('fleetStatus', () => {
  it('makes a configuration problem a row or a note, never a failure, and asks no blocked node', async () => {
    const { driver, calls } = recordingDriver({ alpha: status('running', 'tiny') });
    const rows = await fleetStatus(FLEET, FLEET.nodes, {
      driver,
      sourceProblem: (target) =>
        Promise.resolve(
          target.name === 'beta' ? 'its Svcfile source /f/beta.svc does not exist' : undefined,
        ),
    });
    expect(calls.sort()).toEqual(['status alpha', 'status beta', 'status delta']);
    expect(rows.map((row) => [row.node, row.outcome])).toEqual([
      ['alpha', 'ok'],
      ['beta', 'ok'],
      ['gamma', 'config-error'],
      ['delta', 'ok'],
    ]);
    const text = statusText(rows);
    // A reason is not a column: it does not widen SERVING for every other row.
    expect(text.split('\n')[0]).toBe('NODE   STATE         SERVING  LAST ACTIVE');
    expect(text).toMatch(/^NODE +STATE +SERVING +LAST ACTIVE\nalpha +running +tiny\n/);
    expect(text).toContain(
      'gamma  config-error  G_TOKEN is not set (tokenEnv): export it, or put it in the .env beside /f/fleet.yaml',
    );
    expect(text).toContain('note: beta: its Svcfile source /f/beta.svc does not exist\n');
    expect(text).toContain('note: delta: D_KEY is not set (engineTokenEnv)');
  });

  it('shows busy/slots, the group and the gateway’s queue and idle stops only where known', async () => {
    const grouped: Fleet = {
      path: '/f/fleet.yaml',
      nodes: [
        Object.assign(node('a'), { group: 'a100' }),
        Object.assign(node('b'), { group: 'a100' }),
        node('c'),
      ],
    };
    const busy: NodeReply<NodeStatus> = {
      ok: true,
      value: { state: 'running', servedName: 'qwen', version: 'dev', ...{ slots: 2, busy: 1 } },
    };
    // A stopped engine's kept figures are stale: not shown.
    const stopped: NodeReply<NodeStatus> = {
      ok: true,
      value: { state: 'stopped', version: 'dev', ...{ slots: 2, busy: 0 } },
    };
    const { driver } = recordingDriver({ a: busy, b: stopped });
    const rows = await fleetStatus(grouped, grouped.nodes, {
      driver,
      sourceProblem: () => Promise.resolve(undefined),
    });
    const answer = {
      ok: true,
      name: 'lab',
      queued: { gemma: 1 },
      nodes: new Map([['a', { inFlight: 1, idleStopAt: '2026-11-22T10:35:00.000Z' }]]),
    } as const;
    const joined = withGateway(rows, answer);
    expect(joined[0]).toMatchObject({ node: 'a', group: 'a100', inFlight: 1 });
    expect(statusText(joined, answer)).toBe(
      [
        'NODE  STATE    SERVING  BUSY  GROUP  LAST ACTIVE  IDLE STOP',
        'a     running  qwen     1/2   a100                2026-11-22T10:35:00.000Z',
        'b     stopped                 a100',
        'c     idle',
        'queued at the gateway (lab): gemma 1',
        '',
      ].join('\n'),
    );
    // Without the gateway, and with no node reporting more, the table is the plain one.
    const plain = await fleetStatus(FLEET, [node('x')], {
      driver,
      sourceProblem: () => Promise.resolve(undefined),
    });
    expect(statusText(plain)).toBe('NODE  STATE  SERVING  LAST ACTIVE\nx     idle\n');
    expect(
      statusText(plain, { ok: false, name: 'lab', detail: 'GET http://gw/v1/fleet: refused' }),
    ).toContain('\nnote: the gateway (lab) did not answer: GET http://gw/v1/fleet: refused\n');
  });

  it("shows an upstream node's kind and the names it serves, never its key", async () => {
    const key = 'sk-status-never-4d2e';
    const hosted = upstreamNode('hosted', {
      apiKey: key,
      models: { big: 'vendor/big', small: 'small' },
    });
    const fleet: Fleet = { path: '/f/fleet.yaml', nodes: [node('a'), hosted] };
    const { driver } = recordingDriver({
      a: status('running', 'qwen'),
      hosted: { ok: true, value: { state: 'running', runner: 'upstream' } },
    });
    const rows = await fleetStatus(fleet, fleet.nodes, {
      driver,
      sourceProblem: () => Promise.resolve(undefined),
    });
    expect(rows[1]).toMatchObject({ kind: 'upstream', models: ['big', 'small'] });
    const text = statusText(rows);
    expect(text).toBe(
      [
        'NODE    STATE    KIND      SERVING     LAST ACTIVE',
        'a       running            qwen',
        'hosted  running  upstream  big, small',
        '',
      ].join('\n'),
    );
    expect(JSON.stringify(rows) + text).not.toContain(key);
  });

  it('says once that no gateway answers, not on every local node it runs', () => {
    const why = 'the gateway at http://gw (which runs local nodes): connect ECONNREFUSED';
    const rows: StatusRow[] = [
      { node: 'a', outcome: 'unreachable', error: why },
      { node: 'b', outcome: 'unreachable', error: why },
      { node: 'd', outcome: 'unreachable', error: 'connect ECONNREFUSED 10.0.0.9:4242' },
    ];
    const down = {
      ok: false as const,
      name: 'lab',
      detail: 'GET http://gw/v1/fleet: connect ECONNREFUSED',
      silent: { url: 'http://gw', reason: 'connect ECONNREFUSED' },
    };
    const text = statusText(rows, down, new Set(['a', 'b']));
    expect(text).toBe(
      [
        'NODE  STATE        SERVING  LAST ACTIVE',
        'a     unreachable',
        'b     unreachable',
        'd     unreachable  connect ECONNREFUSED 10.0.0.9:4242',
        'note: no gateway answers at http://gw (connect ECONNREFUSED): it runs the local nodes a, b; start it with svc up beside the fleet file',
        '',
      ].join('\n'),
    );
  });
});

describe('fleetAct', () => {
  const deps = (
    driver: Pick<NodeDriver, 'status' | 'wakeSource' | 'start' | 'stop'>,
    lines: string[],
  ) => ({
    driver,
    print: (line: string) => lines.push(line),
  });

  it('reports a node already running and sends it nothing; starts the others', async () => {
    const { driver, calls } = recordingDriver({
      alpha: status('running', 'tiny'),
      beta: status('stopped'),
    });
    const lines: string[] = [];
    const results = await fleetAct('start', FLEET, FLEET.nodes.slice(0, 2), deps(driver, lines));
    expect(results.map((result) => result.outcome)).toEqual(['already', 'ok']);
    expect(calls).toEqual(['status alpha', 'status beta', 'start beta']);
    expect(lines).toEqual([
      'alpha  already running (tiny)',
      'beta: using /f/x.svc',
      'beta  running',
    ]);
  });

  it('takes a 409 (started meanwhile) as already running', async () => {
    const { driver } = recordingDriver({ beta: status('stopped') });
    const lines: string[] = [];
    const conflicted = {
      ...driver,
      start: (): Promise<NodeReply<NodeStatus>> =>
        Promise.resolve({ ok: false, outcome: 'failed', status: 409, detail: 'HTTP 409' }),
    };
    const results = await fleetAct(
      'start',
      FLEET,
      [FLEET.nodes[1] as FleetNode],
      deps(conflicted, lines),
    );
    expect(results).toEqual([{ node: 'beta', outcome: 'already', state: 'running' }]);
  });

  it('reports a node not running on stop and stops only the running one', async () => {
    const { driver, calls } = recordingDriver({
      alpha: status('running'),
      beta: status('stopped'),
    });
    const lines: string[] = [];
    const results = await fleetAct('stop', FLEET, FLEET.nodes.slice(0, 2), deps(driver, lines));
    expect(results.map((result) => result.outcome)).toEqual(['ok', 'already']);
    expect(calls).toEqual(['status alpha', 'stop alpha', 'status beta']);
    expect(lines).toEqual(['alpha  stopped', 'beta  already stopped']);
  });

  it('fails only the misconfigured nodes, each on its own line, asking them nothing', async () => {
    const { driver, calls } = recordingDriver({});
    const lines: string[] = [];
    const results = await fleetAct('start', FLEET, FLEET.nodes.slice(1), deps(driver, lines));
    expect(results.map((result) => result.outcome)).toEqual(['ok', 'failed', 'failed']);
    expect(calls).toEqual(['status beta', 'start beta']);
    expect(lines[2]).toBe(
      'gamma  failed: G_TOKEN is not set (tokenEnv): export it, or put it in the .env beside /f/fleet.yaml',
    );
    expect(lines[3]).toContain('delta  failed: D_KEY is not set (engineTokenEnv)');
  });
});
