/** The `/v1/fleet` body (spec §4.2 rule 6), and the docs' example as a real reply. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { daemonNode, upstreamNode } from '../../../test/support/project-files/fleet-node.ts';
import { parseFleet } from '../../core/fleet/file/fleet-file.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import {
  inFlightReadout,
  NO_SCHEDULING,
  type SchedulingReadout,
} from '../metrics/scheduling-readout.ts';
import { fleetBody, fleetParts, fleetReply } from './fleet-reply.ts';

const NOW = Date.parse('2026-11-22T10:05:00.000Z');

const docs = readFileSync(
  join(fileURLToPath(import.meta.url), '../../../../docs/gateway.md'),
  'utf8',
);

/** The JSON block under the `/v1/fleet` heading. */
function documentedReply(): unknown {
  const section = docs.slice(docs.indexOf('### `/v1/fleet`'));
  const block = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) {
    throw new Error('docs/gateway.md has no JSON example under ### `/v1/fleet`');
  }
  return JSON.parse(block);
}

function fleetOf(text: string) {
  const result = parseFleet(text, 'fleet.yaml', { env: {}, dotenv: {} });
  if (!result.ok) {
    throw new Error(JSON.stringify(result));
  }
  return result.value;
}

describe('the /v1/fleet body', () => {
  it('is the docs example for the fleet the docs describe', () => {
    const fleet = fleetOf(
      [
        'wake: on',
        'prefer: idle',
        'concurrency: {total: 4, tags: {gpu=a100: 2}}',
        'nodes:',
        '  - {name: gpu-a, host: a, tags: {gpu: a100}}',
        '  - {name: gpu-b, host: b}',
        '  - {name: gpu-c, host: c}',
        '  - {name: coder, kind: local, file: coder/Svcfile}',
        '',
      ].join('\n'),
    );
    const [parsedA, parsedB, c, coder] = fleet.nodes;
    if (parsedA === undefined || parsedB === undefined || c === undefined || coder === undefined) {
      throw new Error('four nodes expected');
    }
    // docs/design.md D26 `group: a100` on gpu-a and gpu-b, as the fleet file declares it.
    const a = Object.assign(parsedA, { group: 'a100' });
    const b = Object.assign(parsedB, { group: 'a100' });
    const snapshots: NodeSnapshot[] = [
      {
        node: a,
        ok: true,
        status: {
          state: 'running',
          model: 'unsloth/Qwen3-8B-GGUF:Q4_K_M',
          servedName: 'qwen',
          ready: 'ready',
          lastActiveAt: '2026-11-22T10:00:00.000Z',
          version: 'dev',
          // docs/design.md D25: the engine's slots and the requests in it, where the daemon reports
          // them.
          ...{ slots: 2, busy: 1 },
        },
      },
      // A stopped daemon keeps its last model in status; the reply must not say it serves it.
      { node: b, ok: true, status: { state: 'stopped', model: 'old-model', version: 'dev' } },
      { node: c, ok: false, outcome: 'unreachable', detail: 'connect ECONNREFUSED …' },
      // A local node whose Svcfile does not parse: idle, and why its start would fail.
      { node: coder, ok: true, status: { state: 'idle', version: 'dev' } },
    ];
    const problems = new Map([
      ['coder', ['/srv/fleet/coder/Svcfile:4: unknown keyword "CONTEXTT" (expected …)']],
    ]);
    // One request of ours on gpu-a, which idle stop takes down 30 min after it; one for gemma
    // waits for the group gpu-a holds.
    const scheduling: SchedulingReadout = {
      inFlight: (node) => (node === 'gpu-a' ? 1 : 0),
      queued: () => new Map([['gemma', 1]]),
      idleStopAt: (node) => (node === 'gpu-a' ? NOW + 30 * 60_000 : undefined),
    };
    const wakeable = new Map([['gpu-b', 'gemma']]);
    const reply = fleetReply(fleet, snapshots, wakeable, NOW, scheduling, problems);
    expect(reply).toEqual(documentedReply());
    // The served text, built in two steps, is the same reply byte for byte; and without a readout.
    const parts = fleetParts(fleet, snapshots, wakeable, NOW, problems);
    expect(fleetBody(parts, snapshots, scheduling)).toBe(JSON.stringify(reply));
    expect(fleetBody(parts, snapshots)).toBe(
      JSON.stringify(fleetReply(fleet, snapshots, wakeable, NOW, undefined, problems)),
    );
  });

  it('leaves out every setting the file does not declare, an empty concurrency included', () => {
    const fleet = fleetOf('concurrency: {}\nnodes:\n  - {name: a, host: h}\n');
    expect(fleet.concurrency).toBeUndefined();
    const reply = fleetReply(fleet, [], new Map(), NOW);
    expect(Object.keys(reply)).toEqual(['nodes']);
  });

  it('says what a running node serves and what a stopped one would start', () => {
    const running: NodeSnapshot = {
      node: daemonNode('r'),
      ok: true,
      status: { state: 'running', model: 'm', servedName: 's', version: 'dev' },
    };
    const crashed: NodeSnapshot = {
      node: daemonNode('x'),
      ok: true,
      status: { state: 'crashed', model: 'm', servedName: 's', version: 'dev' },
    };
    const reply = fleetReply({}, [running, crashed], new Map([['x', 's']]), NOW);
    expect(reply['nodes']).toEqual([
      { name: 'r', kind: 'daemon', state: 'running', model: 'm', servedName: 's' },
      { name: 'x', kind: 'daemon', state: 'crashed', wakeableModel: 's' },
    ]);
  });

  it('leaves out what the gateway cannot know: no readout, a stopped engine, zero slots', () => {
    const snapshot = (state: string, extra: object): NodeSnapshot => ({
      node: daemonNode(state),
      ok: true,
      status: { state, model: 'm', version: 'dev', ...extra },
    });
    const snapshots = [
      snapshot('running', { slots: 0, busy: 0 }),
      // A stopped daemon's status may keep what its engine last reported.
      snapshot('stopped', { slots: 2, busy: 1 }),
    ];
    const idle: SchedulingReadout = { ...NO_SCHEDULING, idleStopAt: () => NOW };
    const withReadout = fleetReply({}, snapshots, new Map(), NOW, idle);
    expect(withReadout['nodes']).toEqual([
      {
        name: 'running',
        kind: 'daemon',
        state: 'running',
        model: 'm',
        busy: 0,
        inFlight: 0,
        idleStopAt: '2026-11-22T10:05:00.000Z',
      },
      // Idle stop is for a running node only, whatever the readout says.
      { name: 'stopped', kind: 'daemon', state: 'stopped', inFlight: 0 },
    ]);
    expect(withReadout).not.toHaveProperty('queued');
    const without = fleetReply({}, snapshots, new Map(), NOW);
    expect(without['nodes']).toEqual([
      { name: 'running', kind: 'daemon', state: 'running', model: 'm', busy: 0 },
      { name: 'stopped', kind: 'daemon', state: 'stopped' },
    ]);
  });

  it('lists only the models with requests waiting, and counts ours on a node that is down', () => {
    const down: NodeSnapshot = {
      node: daemonNode('d'),
      ok: false,
      outcome: 'unreachable',
      detail: 'refused',
    };
    const readout: SchedulingReadout = {
      ...inFlightReadout(() => 3),
      queued: () =>
        new Map([
          ['a', 0],
          ['b', 2],
        ]),
    };
    const reply = fleetReply({}, [down], new Map(), NOW, readout);
    expect(fleetBody(fleetParts({}, [down], new Map(), NOW), [down], readout)).toBe(
      JSON.stringify(reply),
    );
    expect(reply['queued']).toEqual({ b: 2 });
    expect(reply['nodes']).toEqual([
      { name: 'd', kind: 'daemon', state: 'unreachable', detail: 'refused', inFlight: 3 },
    ]);
    expect(Object.keys(reply)).toEqual(['queued', 'nodes']);
  });

  it('shows an upstream node by kind, state and models: never its key, URL or an engine', () => {
    const key = 'sk-never-in-a-reply';
    const node = upstreamNode('hosted', {
      apiKey: key,
      apiKeyEnv: 'HOSTED_KEY',
      models: { big: 'v/big' },
    });
    const snapshots: NodeSnapshot[] = [
      { node, ok: true, status: { state: 'running', runner: 'upstream', slots: 8 } },
      { node: { ...node, name: 'gone' }, ok: false, outcome: 'unauthorized', detail: 'HTTP 401' },
    ];
    const reply = fleetReply({}, snapshots, new Map(), NOW);
    expect(reply['nodes']).toEqual([
      { name: 'hosted', kind: 'upstream', state: 'running', models: ['big'] },
      { name: 'gone', kind: 'upstream', state: 'unreachable', models: ['big'], detail: 'HTTP 401' },
    ]);
    expect(JSON.stringify(reply)).not.toContain(key);
    expect(JSON.stringify(reply)).not.toContain('HOSTED_KEY');
  });
});
