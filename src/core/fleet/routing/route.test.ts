/**
 * Routing decisions (spec §4.2 rules 3 and 5): which running node serves a model, ranked by
 * `prefer` with file order breaking ties; wait for one loading it; wake when none runs it; never
 * a loopback-only engine (GUIDE D15); and the "nothing serves it" text.
 */
import { describe, expect, it } from 'vitest';

import {
  fleetOf,
  MODEL,
  node,
  running,
  SERVED,
  type StatusChanges,
} from '../../../../test/support/scheduling/route-snapshots.ts';
import type { Fleet, FleetNode } from '../file/fleet-file.ts';
import type { NodeSnapshot } from '../state/node-snapshot.ts';
import { type Decision, describeFleet, route, serves } from './route.ts';

/** Active `idleSeconds` ago. */
function idleFor(idleSeconds: number): StatusChanges {
  return {
    idleSeconds,
    lastActiveAt: new Date(Date.UTC(2026, 0, 1) - idleSeconds * 1000).toISOString(),
  };
}

function unreachable(target: FleetNode, detail = 'connect ECONNREFUSED'): NodeSnapshot {
  return { node: target, ok: false, outcome: 'unreachable', detail };
}

function served(decision: Decision): string {
  if (decision.kind !== 'serve') {
    throw new Error(`expected a node to serve, got ${JSON.stringify(decision)}`);
  }
  return decision.target.node.name;
}

/** The order route picks nodes in: route, drop the chosen snapshot, route again. */
function pickOrder(snapshots: readonly NodeSnapshot[], fleet: Fleet): string[] {
  const left = [...snapshots];
  const order: string[] = [];
  while (left.length > 0) {
    const name = served(route(SERVED, left, fleet));
    order.push(name);
    left.splice(
      left.findIndex((snapshot) => snapshot.node.name === name),
      1,
    );
  }
  return order;
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

describe('route: which node serves', () => {
  const [a, b, c, d] = [node('a'), node('b'), node('c'), node('d')];

  it('serves on the one running ready node, by served name or model id', () => {
    const snapshots = [
      unreachable(a),
      running(b, { model: 'other/m', servedName: 'x' }),
      running(c),
    ];
    const fleet = fleetOf([a, b, c]);
    expect(served(route(SERVED, snapshots, fleet))).toBe('c');
    expect(served(route(MODEL, snapshots, fleet))).toBe('c');
  });

  it('serves on a running node that reports no readiness', () => {
    expect(served(route(SERVED, [running(a, { ready: undefined })], fleetOf([a])))).toBe('a');
  });

  it('prefers a ready node over one still loading', () => {
    const fleet = fleetOf([a, b]);
    expect(served(route(SERVED, [running(a, { ready: 'not-ready' }), running(b)], fleet))).toBe(
      'b',
    );
  });

  it('idle (the default): never active first, then the most idle, then the least', () => {
    const snapshots = [
      running(a, idleFor(10)),
      running(b, idleFor(300)),
      running(c),
      running(d, idleFor(0)),
    ];
    expect(pickOrder(snapshots, fleetOf([a, b, c, d]))).toEqual(['c', 'b', 'a', 'd']);
    expect(pickOrder(snapshots, fleetOf([a, b, c, d], 'idle'))).toEqual(['c', 'b', 'a', 'd']);
  });

  it('active: the least idle first, never active last', () => {
    const snapshots = [
      running(a, idleFor(10)),
      running(b, idleFor(300)),
      running(c),
      running(d, idleFor(0)),
    ];
    expect(pickOrder(snapshots, fleetOf([a, b, c, d], 'active'))).toEqual(['d', 'a', 'b', 'c']);
  });

  it.each(['idle', 'active'] as const)(
    'prefer %s: ties go by fleet-file order, not reply order',
    (prefer) => {
      const fleet = fleetOf([c, a, d, b], prefer);
      const neverActive = [running(a), running(b), running(c), running(d)];
      expect(pickOrder(neverActive, fleet)).toEqual(['c', 'a', 'd', 'b']);
      const equallyIdle = [a, b, c, d].map((each) => running(each, idleFor(42)));
      expect(pickOrder(equallyIdle, fleet)).toEqual(['c', 'a', 'd', 'b']);
    },
  );

  it('hands back the chosen node with its engine target', () => {
    const decision = route(SERVED, [running(a)], fleetOf([a]));
    expect(decision).toEqual({
      kind: 'serve',
      target: {
        node: a,
        baseUrl: 'http://a.lan:8080/v1',
        origin: 'http://a.lan:8080',
        pathPrefix: '/v1',
      },
    });
  });
});

describe('route: waiting and waking', () => {
  const [a, b, c] = [node('a'), node('b'), node('c')];

  it('waits for a running node that is still loading the model', () => {
    const snapshots = [
      running(a, { model: 'other/m', servedName: 'x' }),
      running(b, { ready: 'not-ready' }),
    ];
    expect(route(SERVED, snapshots, fleetOf([a, b]))).toEqual({ kind: 'wait', node: b });
  });

  it.each<[string, NodeSnapshot[]]>([
    ['no node answers', [unreachable(a), unreachable(b)]],
    ['other models run', [running(a, { model: 'other/m', servedName: 'x' })]],
    [
      'the model is named only by nodes that are not running',
      [
        running(a, { state: 'stopped' }),
        running(b, { state: 'crashed' }),
        running(c, { state: 'idle' }),
      ],
    ],
    ['there are no snapshots', []],
  ])('asks for a wake when %s', (_name, snapshots) => {
    expect(route(SERVED, snapshots, fleetOf([a, b, c]))).toEqual({ kind: 'wake' });
  });
});

describe('route: loopback-only engines (GUIDE D15)', () => {
  const loopback = { engine: { port: 8080, loopbackOnly: true } };

  it('never picks a loopback-only engine without an engine host, even when it ranks first', () => {
    const [a, b] = [node('a'), node('b')];
    // a is never active, so idle ranks it first; it is still passed over.
    const snapshots = [running(a, loopback), running(b, idleFor(5))];
    expect(served(route(SERVED, snapshots, fleetOf([a, b])))).toBe('b');
  });

  it.each([
    ['no engine override', node('solo')],
    ['an engine override without a host', node('solo', { engine: { port: 9000 } })],
  ])('refuses with 502 when the only match has %s', (_name, only) => {
    const decision = route(SERVED, [running(only, loopback)], fleetOf([only]));
    expect(decision.kind).toBe('refuse');
    if (decision.kind === 'refuse') {
      expect(decision.status).toBe(502);
      expect(decision.code).toBe('loopback_only');
      expect(decision.message).toContain('bound to loopback');
      expect(decision.message).toContain('"solo"');
      expect(decision.message).toContain('fleet.yaml');
    }
  });

  it('picks it through an engine host override', () => {
    const reachable = node('a', { engine: { host: '10.0.0.5' } });
    expect(route(SERVED, [running(reachable, loopback)], fleetOf([reachable]))).toEqual({
      kind: 'serve',
      target: {
        node: reachable,
        baseUrl: 'http://10.0.0.5:8080/v1',
        origin: 'http://10.0.0.5:8080',
        pathPrefix: '/v1',
      },
    });
  });
});

describe('describeFleet', () => {
  it('lists every node with its state and model, or its outcome and detail', () => {
    const [a, b, c] = [node('a'), node('b'), node('c')];
    const text = describeFleet(
      'wanted',
      [
        running(a),
        running(b, { state: 'stopped', model: undefined, servedName: undefined }),
        unreachable(c, 'connect ECONNREFUSED 10.0.0.3:4242'),
      ],
      fleetOf([a, b, c]),
    );
    expect(text.split('\n')).toEqual([
      'no node in fleet.yaml is serving wanted:',
      `  ${'a'.padEnd(16)} running  ${SERVED}`,
      `  ${'b'.padEnd(16)} stopped`,
      `  ${'c'.padEnd(16)} unreachable (connect ECONNREFUSED 10.0.0.3:4242)`,
    ]);
  });

  it('falls back to the model id when no served name is reported', () => {
    const a = node('a');
    const text = describeFleet('wanted', [running(a, { servedName: undefined })], fleetOf([a]));
    expect(text).toContain(`running  ${MODEL}`);
  });
});
