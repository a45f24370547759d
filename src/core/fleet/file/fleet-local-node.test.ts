/**
 * Local nodes (docs/design.md D27): the gateway runs their engines itself from `file:`, so a local
 * node needs a file and is refused a host, port, token, engine host/path, wake or sleep command,
 * each problem naming the node and the key.
 */
import { describe, expect, it } from 'vitest';

import { asLocal } from '../../../../test/support/project-files/fleet-node.ts';
import {
  lines,
  parsed,
  problems,
  withVariables,
} from '../../../../test/support/project-files/fleet-text.ts';

const localNode = (...nodeLines: string[]): string =>
  lines('nodes:', '  - name: box', '    kind: local', ...nodeLines.map((line) => `    ${line}`));

describe('local nodes', () => {
  it('reads a local node with its file and no host, port or token', () => {
    expect(parsed(localNode('file: models/qwen/Svcfile')).nodes).toEqual([
      { name: 'box', kind: 'local', file: 'models/qwen/Svcfile', wake: 'on', ownWake: false },
    ]);
  });

  it('keeps its tags, wake, engine port and engine key', () => {
    const result = withVariables(
      localNode(
        'file: Svcfile',
        'tags: {size: small}',
        'wake: off',
        'engine: {port: 8081}',
        'engineTokenEnv: BOX_KEY',
      ),
      { BOX_KEY: 'k' },
    );
    expect(result.ok && asLocal(result.value.nodes[0])).toEqual({
      name: 'box',
      kind: 'local',
      file: 'Svcfile',
      tags: { size: 'small' },
      wake: 'off',
      ownWake: true,
      engine: { port: 8081 },
      engineTokenEnv: 'BOX_KEY',
      engineKey: 'k',
    });
  });

  it('reads slots, a cap on its requests in flight, and refuses one that is no whole number ≥ 1', () => {
    expect(parsed(localNode('file: Svcfile', 'slots: 2')).nodes[0]).toMatchObject({ slots: 2 });
    for (const bad of ['0', '1.5', 'two']) {
      expect(problems(localNode('file: Svcfile', `slots: ${bad}`))).toContainEqual(
        expect.stringContaining('node "box": slots must be a whole number of at least 1'),
      );
    }
    const daemon = lines('nodes:', '  - name: gpu', '    host: h', '    slots: 3');
    expect(parsed(daemon).nodes[0]).toMatchObject({ kind: 'daemon', slots: 3 });
  });

  it('takes the fleet-wide wake when it names none', () => {
    const text = lines('wake: off', 'nodes:', '  - {name: box, kind: local, file: Svcfile}');
    expect(parsed(text).nodes[0]?.wake).toBe('off');
  });

  it('needs a file, naming the node', () => {
    expect(problems(localNode('tags: {a: b}'))).toEqual([
      'fleet.yaml: node "box" is a local node, so it needs file: the path to the Svcfile it serves',
    ]);
  });

  it('refuses an empty file', () => {
    expect(problems(localNode('file: ""'))).toEqual([
      `fleet.yaml: node "box": file must be a path to the node's Svcfile`,
    ]);
  });

  it.each([
    ['host', 'host: gpu-box'],
    ['port', 'port: 4242'],
    ['tokenEnv', 'tokenEnv: BOX_TOKEN'],
    ['instance-type', 'instance-type: g6e.xlarge'],
  ])('refuses %s, naming the node and the key', (key, line) => {
    expect(problems(localNode('file: Svcfile', line))).toEqual([
      `fleet.yaml: node "box" is a local node, so ${key} does not apply: the gateway runs its engine itself, from its file`,
    ]);
  });

  it.each([
    ['wakeCommand', 'wakeCommand: [wakeonlan, "aa:bb:cc:dd:ee:ff"]'],
    ['sleepCommand', 'sleepCommand: [systemctl, suspend]'],
  ])('refuses %s (its machine is the gateway’s own), naming the node and the key', (key, line) => {
    expect(problems(localNode('file: Svcfile', line))).toEqual([
      `fleet.yaml: node "box" is a local node, so ${key} does not apply: its engine runs on the gateway's own machine, which the gateway never puts to sleep or wakes`,
    ]);
  });

  it.each([
    ['host', 'engine: {host: 10.0.0.5}'],
    ['path', 'engine: {path: /api}'],
  ])('refuses engine.%s (its engine listens on loopback)', (key, line) => {
    expect(problems(localNode('file: Svcfile', line))).toEqual([
      `fleet.yaml: node "box" is a local node, so engine.${key} does not apply: its engine listens on this machine's loopback (engine.port may be set)`,
    ]);
  });

  it('reports an unset engine key variable naming the node', () => {
    expect(problems(localNode('file: Svcfile', 'engineTokenEnv: UNSET_KEY'))).toEqual([
      'fleet.yaml: UNSET_KEY is not set (node "box", engineTokenEnv): export it, or put it in the .env beside the fleet file',
    ]);
  });

  it('sits beside daemon and remote nodes in file order', () => {
    const text = lines(
      'apiKeyEnv: K',
      'nodes:',
      '  - {name: a, host: h}',
      '  - {name: b, kind: local, file: b/Svcfile}',
      '  - {name: c, kind: remote}',
    );
    const result = withVariables(text, { K: 'k' });
    expect(result.ok && result.value.nodes.map((node) => node.kind)).toEqual([
      'daemon',
      'local',
      'remote',
    ]);
  });

  it.each(['a/b', '..', '.', 'a\\b'])(
    'refuses the name %s (its files live in nodes/<name>/)',
    (name) => {
      const found = problems(lines('nodes:', `  - {name: '${name}', kind: local, file: Svcfile}`));
      expect(found.some((message) => message.includes('must be a plain file name'))).toBe(true);
    },
  );
});
