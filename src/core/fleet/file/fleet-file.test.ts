/**
 * The fleet file's nodes (docs/fleet-file.md, docs/design.md D21): each kind's fields, defaults,
 * overrides and refusals.
 */
import { describe, expect, it } from 'vitest';

import { asDaemon } from '../../../../test/support/project-files/fleet-node.ts';
import {
  lines,
  oneNode,
  parsed,
  problems,
  withVariables,
} from '../../../../test/support/project-files/fleet-text.ts';

describe('nodes', () => {
  it('gives a bare node kind daemon, port 4242 and wake on', () => {
    const fleet = parsed(lines('nodes:', '  - name: gpu1', '    host: gpu-box'));
    expect(fleet.path).toBe('fleet.yaml');
    expect(fleet.nodes).toEqual([
      { name: 'gpu1', kind: 'daemon', host: 'gpu-box', port: 4242, wake: 'on', ownWake: false },
    ]);
    expect(fleet.prefer).toBeUndefined();
    expect(fleet.wake).toBeUndefined();
    expect(fleet.concurrency).toBeUndefined();
    expect(fleet.gateway).toBeUndefined();
  });

  it('keeps the nodes in file order with their own ports and an explicit kind daemon', () => {
    const fleet = parsed(
      lines(
        'nodes:',
        '  - {name: b, host: hb, port: 5000, kind: daemon}',
        '  - {name: a, host: ha, port: 1}',
        '  - {name: c, host: hc, port: 65535}',
      ),
    );
    expect(
      fleet.nodes.map(asDaemon).map((node) => [node.name, node.host, node.port, node.kind]),
    ).toEqual([
      ['b', 'hb', 5000, 'daemon'],
      ['a', 'ha', 1, 'daemon'],
      ['c', 'hc', 65535, 'daemon'],
    ]);
  });

  it('reads tags as a map of strings', () => {
    expect(parsed(oneNode('tags:', '  gpu: a100', '  zone: eu')).nodes[0]?.tags).toEqual({
      gpu: 'a100',
      zone: 'eu',
    });
  });

  it.each([
    ['a number', 'tags: {gpu: 5}'],
    ['an empty string', 'tags: {gpu: ""}'],
    ['a list instead of a map', 'tags: [gpu]'],
  ])('refuses a tag value that is %s', (_name, line) => {
    expect(problems(oneNode(line)).join('\n')).toMatch(/node "a".*tag/);
  });

  it('keeps file as written', () => {
    expect(parsed(oneNode('file: ../models/Svcfile')).nodes[0]?.file).toBe('../models/Svcfile');
  });

  it('refuses an empty file', () => {
    expect(problems(oneNode('file: ""'))).toEqual([
      `fleet.yaml: node "a": file must be a path to the node's Svcfile`,
    ]);
  });

  describe('engine override', () => {
    it.each([
      ['host only', 'engine: {host: 10.0.0.5}', { host: '10.0.0.5' }],
      ['port only', 'engine: {port: 8080}', { port: 8080 }],
      ['path only', 'engine: {path: /api/v1}', { path: '/api/v1' }],
      [
        'all three',
        'engine: {host: "https://gpu.example", port: 8443, path: /v1}',
        { host: 'https://gpu.example', port: 8443, path: '/v1' },
      ],
    ])('keeps %s', (_name, line, engine) => {
      expect(parsed(oneNode(line)).nodes[0]?.engine).toEqual(engine);
    });

    it('refuses a non-mapping and a fractional port', () => {
      expect(problems(oneNode('engine: 8080'))).toEqual([
        'fleet.yaml: node "a": engine must be a mapping of host, port and path',
      ]);
      expect(problems(oneNode('engine: {port: 80.5}'))).toEqual([
        'fleet.yaml: node "a": engine.port must be a whole number',
      ]);
    });
  });

  it.each([
    ['no name at all', lines('nodes:', '  - host: h'), 'node 1 has no name'],
    [
      'an empty name, 1-based',
      lines('nodes:', '  - {name: a, host: h}', '  - {name: "", host: h}'),
      'node 2 has no name',
    ],
    [
      'a non-string name',
      lines('nodes:', '  - {name: a, host: h}', '  - {name: b, host: h}', '  - {name: 7, host: h}'),
      'node 3 has no name',
    ],
    [
      'a duplicate name',
      lines('nodes:', '  - {name: a, host: h}', '  - {name: a, host: h2}'),
      'duplicate node name "a"',
    ],
    ['no host', lines('nodes:', '  - name: a'), 'node "a" has no host'],
    ['an empty host', lines('nodes:', '  - {name: a, host: ""}'), 'node "a" has no host'],
    [
      'a node that is not a mapping',
      lines('nodes:', '  - {name: a, host: h}', '  - just-a-string'),
      'node 2 must be a mapping',
    ],
  ])('refuses %s', (_name, text, message) => {
    expect(problems(text)).toEqual([`fleet.yaml: ${message}`]);
  });

  it.each([
    ['zero', 'port: 0'],
    ['too large', 'port: 65536'],
    ['negative', 'port: -1'],
    ['fractional', 'port: 42.5'],
    ['a string', 'port: "4242"'],
  ])('refuses a port that is %s', (_name, line) => {
    expect(problems(oneNode(line))).toEqual([
      'fleet.yaml: node "a": port must be a whole number from 1 to 65535',
    ]);
  });

  it('reads a remote node: no host, its engine key from apiKeyEnv or its own engineTokenEnv', () => {
    const fleet = withVariables(
      lines(
        'apiKeyEnv: FLEET_KEY',
        'nodes:',
        '  - {name: cloud, kind: remote, instance-type: g6e.xlarge}',
        '  - {name: cloud2, kind: remote, engineTokenEnv: OWN_KEY}',
      ),
      { FLEET_KEY: 'k1', OWN_KEY: 'k2' },
    );
    expect(fleet.ok && fleet.value.apiKeyEnv).toBe('FLEET_KEY');
    expect(fleet.ok && fleet.value.nodes).toEqual([
      {
        name: 'cloud',
        kind: 'remote',
        engineTokenEnv: 'FLEET_KEY',
        engineKey: 'k1',
        instanceType: 'g6e.xlarge',
        wake: 'on',
        ownWake: false,
      },
      {
        name: 'cloud2',
        kind: 'remote',
        engineTokenEnv: 'OWN_KEY',
        engineKey: 'k2',
        wake: 'on',
        ownWake: false,
      },
    ]);
  });

  it('refuses a remote node with no engine key variable, naming the node and both keys', () => {
    expect(problems(lines('nodes:', '  - {name: cloud, kind: remote}'))).toEqual([
      `fleet.yaml: node "cloud" is a remote environment, so its engine key must be set: name the variable holding it, in this node's engineTokenEnv or the file's fleet-wide apiKeyEnv (fleet.yaml)`,
    ]);
  });

  it.each([
    ['a host', 'host: h', 'host does not apply'],
    ['a port', 'port: 4242', 'port does not apply'],
    ['a tokenEnv', 'tokenEnv: T', 'tokenEnv does not apply'],
    [
      'a bad instance type',
      'instance-type: xlarge',
      'instance-type "xlarge" is not an instance type',
    ],
  ])('refuses a remote node with %s', (_name, line, expected) => {
    const found = problems(
      lines('apiKeyEnv: K', 'nodes:', '  - name: cloud', '    kind: remote', `    ${line}`),
    );
    expect(found.some((message) => message.includes(expected))).toBe(true);
  });

  it.each(['a/b', 'env.json', '..'])('refuses the remote node name %s (a registry key)', (name) => {
    const found = problems(lines('apiKeyEnv: K', 'nodes:', `  - {name: "${name}", kind: remote}`));
    expect(found.some((message) => message.includes('is not an environment name'))).toBe(true);
  });

  it('refuses instance-type on a daemon node', () => {
    expect(problems(oneNode('instance-type: g6e.xlarge'))).toEqual([
      'fleet.yaml: node "a": instance-type applies only to remote nodes (kind: remote); a daemon runs on its own machine',
    ]);
  });

  it('refuses an unknown kind, naming it and the supported ones', () => {
    expect(problems(lines('nodes:', '  - {name: a, host: h, kind: docker}'))).toEqual([
      'fleet.yaml: node "a" has kind "docker": supported kinds are "daemon", "remote", "local" and "upstream"',
    ]);
  });

  it.each([
    ['an empty list', 'nodes: []'],
    ['no nodes key', 'prefer: idle'],
    ['a mapping instead of a list', 'nodes: {a: {host: h}}'],
  ])('refuses %s: no nodes', (_name, text) => {
    expect(problems(lines(text))).toEqual(['fleet.yaml: no nodes: list at least one under nodes:']);
  });

  it('names the file it was given in every problem', () => {
    expect(problems(lines('nodes: []'), 'conf/fleet.yaml')).toEqual([
      'conf/fleet.yaml: no nodes: list at least one under nodes:',
    ]);
  });
});
