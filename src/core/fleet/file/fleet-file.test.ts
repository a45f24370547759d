/**
 * The fleet file (docs/fleet-file.md): YAML 1.2 text and the variables it may reference in, a
 * Fleet or every problem at once out, each problem naming the node it is about.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseHelpers } from '../../../../test/support/parse-result.ts';
import { type FleetSources, parseFleet, type Variables } from './fleet-file.ts';

const NO_VARIABLES: FleetSources = { env: {}, dotenv: {} };

const { parsed, problems } = parseHelpers(
  (text, source) => parseFleet(text, source, NO_VARIABLES),
  'the fleet file',
  'fleet.yaml',
);

const lines = (...parts: string[]): string => `${parts.join('\n')}\n`;

/** A fleet file with one node `a` on host `h`, the node's extra lines indented under it. */
const oneNode = (...nodeLines: string[]): string =>
  lines('nodes:', '  - name: a', '    host: h', ...nodeLines.map((line) => `    ${line}`));

const withVariables = (text: string, env: Variables, dotenv: Variables = {}) =>
  parseFleet(text, 'fleet.yaml', { env, dotenv });

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
    expect(fleet.nodes.map((node) => [node.name, node.host, node.port, node.kind])).toEqual([
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
        host: '',
        port: 4242,
        engineTokenEnv: 'FLEET_KEY',
        engineKey: 'k1',
        instanceType: 'g6e.xlarge',
        wake: 'on',
        ownWake: false,
      },
      {
        name: 'cloud2',
        kind: 'remote',
        host: '',
        port: 4242,
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
      'fleet.yaml: node "a" has kind "docker": supported kinds are "daemon" and "remote"',
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

describe('wake (YAML 1.2)', () => {
  it('reads wake: on as the string "on", not a boolean', () => {
    const fleet = parsed(lines('wake: on', 'nodes:', '  - {name: a, host: h, wake: on}'));
    expect(fleet.wake).toBe('on');
    expect(fleet.nodes[0]?.wake).toBe('on');
    expect(fleet.nodes[0]?.ownWake).toBe(true);
  });

  it('reads wake: off per node, other nodes keeping the default', () => {
    const fleet = parsed(
      lines('nodes:', '  - {name: a, host: h, wake: off}', '  - {name: b, host: h}'),
    );
    expect(fleet.wake).toBeUndefined();
    expect(fleet.nodes.map((node) => [node.name, node.wake, node.ownWake])).toEqual([
      ['a', 'off', true],
      ['b', 'on', false],
    ]);
  });

  it('gives every node the fleet-wide wake unless it sets its own', () => {
    const fleet = parsed(
      lines('wake: off', 'nodes:', '  - {name: a, host: h}', '  - {name: b, host: h, wake: on}'),
    );
    expect(fleet.wake).toBe('off');
    expect(fleet.nodes.map((node) => [node.name, node.wake, node.ownWake])).toEqual([
      ['a', 'off', false],
      ['b', 'on', true],
    ]);
  });

  it.each([
    ['fleet-wide', lines('wake: sometimes', 'nodes:', '  - {name: a, host: h}'), ''],
    ['on a node', oneNode('wake: sometimes'), 'node "a": '],
  ])('refuses an unknown wake value %s, naming both values', (_name, text, prefix) => {
    expect(problems(text)).toEqual([
      `fleet.yaml: ${prefix}unknown wake policy "sometimes": use "on" or "off"`,
    ]);
  });

  it.each(['true', 'yes', '1'])('refuses wake: %s (not a policy)', (value) => {
    const [message] = problems(oneNode(`wake: ${value}`));
    expect(message).toContain('unknown wake policy');
    expect(message).toContain('use "on" or "off"');
  });
});

describe('prefer and concurrency', () => {
  it.each(['idle', 'active'] as const)('reads prefer: %s', (prefer) => {
    expect(parsed(lines(`prefer: ${prefer}`, 'nodes:', '  - {name: a, host: h}')).prefer).toBe(
      prefer,
    );
  });

  it('refuses any other preference, naming both values', () => {
    expect(problems(lines('prefer: busiest', 'nodes:', '  - {name: a, host: h}'))).toEqual([
      'fleet.yaml: unknown preference "busiest": use "idle" or "active"',
    ]);
  });

  it('reads concurrency total and key=value tag limits', () => {
    const fleet = parsed(
      lines(
        'concurrency:',
        '  total: 4',
        '  tags:',
        '    gpu=a100: 2',
        '    zone=eu: 1',
        'nodes:',
        '  - {name: a, host: h}',
      ),
    );
    expect(fleet.concurrency).toEqual({ total: 4, tags: { 'gpu=a100': 2, 'zone=eu': 1 } });
  });

  it.each(['0', '-2', '1.5', '"4"'])('refuses concurrency.total %s', (total) => {
    const [message, ...rest] = problems(
      lines('concurrency:', `  total: ${total}`, 'nodes:', '  - {name: a, host: h}'),
    );
    expect(rest).toEqual([]);
    expect(message).toContain('concurrency.total must be a positive whole number');
  });

  it.each([
    ['a key without =', 'gpu: 2', 'must be key=value'],
    ['an empty value side', '"gpu=": 2', 'must be key=value'],
    ['an empty key side', '"=a100": 2', 'must be key=value'],
    ['two =', '"a=b=c": 2', 'must be key=value'],
    ['a zero limit', 'gpu=a100: 0', 'must be a positive whole number'],
    ['a fractional limit', 'gpu=a100: 1.5', 'must be a positive whole number'],
    ['a string limit', 'gpu=a100: two', 'must be a positive whole number'],
  ])('refuses a concurrency tag with %s', (_name, entry, message) => {
    const found = problems(
      lines('concurrency:', '  tags:', `    ${entry}`, 'nodes:', '  - {name: a, host: h}'),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('concurrency.tags');
    expect(found[0]).toContain(message);
  });

  it('refuses a concurrency that is not a mapping', () => {
    expect(problems(lines('concurrency: 4', 'nodes:', '  - {name: a, host: h}'))).toEqual([
      'fleet.yaml: concurrency must be a mapping with total and/or tags',
    ]);
  });
});

describe('token variables', () => {
  const text = oneNode('tokenEnv: NODE_TOKEN', 'engineTokenEnv: ENGINE_KEY');

  it('resolves tokenEnv and engineTokenEnv from the environment', () => {
    const result = withVariables(text, { NODE_TOKEN: 'tok', ENGINE_KEY: 'key' });
    expect(result.ok && result.value.nodes[0]).toMatchObject({
      tokenEnv: 'NODE_TOKEN',
      token: 'tok',
      engineTokenEnv: 'ENGINE_KEY',
      engineKey: 'key',
    });
  });

  it('resolves them from the .env when the environment lacks them', () => {
    const result = withVariables(text, {}, { NODE_TOKEN: 'file-tok', ENGINE_KEY: 'file-key' });
    expect(result.ok && result.value.nodes[0]).toMatchObject({
      token: 'file-tok',
      engineKey: 'file-key',
    });
  });

  it('prefers a non-empty environment value over the .env', () => {
    const result = withVariables(
      text,
      { NODE_TOKEN: 'env-tok', ENGINE_KEY: 'env-key' },
      { NODE_TOKEN: 'file-tok', ENGINE_KEY: 'file-key' },
    );
    expect(result.ok && result.value.nodes[0]).toMatchObject({
      token: 'env-tok',
      engineKey: 'env-key',
    });
  });

  it('treats an exported empty value as unset, so the .env fills it', () => {
    const result = withVariables(
      text,
      { NODE_TOKEN: '', ENGINE_KEY: '' },
      { NODE_TOKEN: 'file-tok', ENGINE_KEY: 'file-key' },
    );
    expect(result.ok && result.value.nodes[0]).toMatchObject({
      token: 'file-tok',
      engineKey: 'file-key',
    });
  });

  it('refuses a variable set nowhere, naming the variable and the node', () => {
    const result = withVariables(text, { NODE_TOKEN: '' }, { ENGINE_KEY: '' });
    expect(result.ok).toBe(false);
    const found = result.ok ? [] : result.problems;
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/NODE_TOKEN is not set \(node "a", tokenEnv\)/);
    expect(found[1]).toMatch(/ENGINE_KEY is not set \(node "a", engineTokenEnv\)/);
  });

  it('in lenient mode keeps the names of unset variables and no values (GUIDE D24)', () => {
    const result = parseFleet(text, 'fleet.yaml', {
      env: {},
      dotenv: {},
      nodeTokens: 'lenient',
    });
    expect(result.ok).toBe(true);
    const node = result.ok ? result.value.nodes[0] : undefined;
    expect(node).toMatchObject({ tokenEnv: 'NODE_TOKEN', engineTokenEnv: 'ENGINE_KEY' });
    expect(node?.token).toBeUndefined();
    expect(node?.engineKey).toBeUndefined();
  });

  it('refuses a tokenEnv that is not a variable name', () => {
    expect(problems(oneNode('tokenEnv: 5'))).toEqual([
      'fleet.yaml: node "a": tokenEnv must name an environment variable',
    ]);
  });

  it('refuses a literal token: key instead of ignoring it (GUIDE D20)', () => {
    expect(problems(oneNode('token: abc'))).toEqual([
      'fleet.yaml: unknown key "token" in node "a" (line 4): did you mean "tokenEnv"?',
    ]);
  });

  it('leaves a node without tokenEnv unauthenticated', () => {
    const node = parsed(oneNode()).nodes[0];
    expect(node?.token).toBeUndefined();
    expect(node?.tokenEnv).toBeUndefined();
    expect(node?.engineKey).toBeUndefined();
  });
});

describe('gateway section', () => {
  const withGateway = (...gatewayLines: string[]): string =>
    lines(
      'gateway:',
      ...gatewayLines.map((line) => `  ${line}`),
      'nodes:',
      '  - {name: a, host: h}',
    );

  it('defaults tokenEnv to OPENAI_API_KEY and the name to the URL host', () => {
    expect(parsed(withGateway('url: http://gpu-box:4000')).gateway).toEqual({
      url: 'http://gpu-box:4000',
      tokenEnv: 'OPENAI_API_KEY',
      ownTokenEnv: false,
      name: 'gpu-box:4000',
    });
  });

  it('keeps a given tokenEnv and name', () => {
    expect(
      parsed(withGateway('url: https://gw.example', 'tokenEnv: GW_TOKEN', 'name: lab')).gateway,
    ).toEqual({ url: 'https://gw.example', tokenEnv: 'GW_TOKEN', ownTokenEnv: true, name: 'lab' });
  });

  it.each([
    ['no url', withGateway('name: lab')],
    ['an empty url', withGateway('url: ""')],
    ['a section that is not a mapping', lines('gateway: x', 'nodes:', '  - {name: a, host: h}')],
  ])('refuses %s', (_name, text) => {
    const [message, ...rest] = problems(text);
    expect(rest).toEqual([]);
    expect(message).toContain('the gateway section names no url');
  });

  it('refuses a url without a scheme', () => {
    expect(problems(withGateway('url: gpu-box:4000'))).toEqual([
      'fleet.yaml: the gateway url "gpu-box:4000" has no scheme: give its full address, including http:// or https://',
    ]);
  });

  it('reads cors origins, with or without a url (GUIDE D22)', () => {
    const both = parsed(withGateway('url: http://gw:4000', 'cors: [https://app.example, "*"]'));
    expect(both.cors).toEqual(['https://app.example', '*']);
    expect(both.gateway?.url).toBe('http://gw:4000');
    const alone = parsed(withGateway('cors: [http://localhost:5173]'));
    expect(alone.cors).toEqual(['http://localhost:5173']);
    expect(alone.gateway).toBeUndefined();
    expect(parsed(withGateway('url: http://gw:4000')).cors).toBeUndefined();
  });

  it('refuses cors that is not a list of origins, naming the key and the value', () => {
    expect(problems(withGateway('url: http://gw:4000', 'cors: [app.example]'))).toEqual([
      'fleet.yaml: gateway.cors must list origins such as "https://app.example" (scheme and host, no path) or "*", not "app.example"',
    ]);
  });
});

describe('problems', () => {
  it('reports every problem in the file at once', () => {
    const found = problems(
      lines(
        'prefer: fastest',
        'wake: maybe',
        'concurrency: {total: 0}',
        'gateway: {url: gw:4000}',
        'nodes:',
        '  - host: nameless',
        '  - {name: a, host: h}',
        '  - {name: a, host: h}',
        '  - {name: b}',
        '  - {name: c, host: h, port: 0}',
        '  - {name: d, kind: remote}',
        '  - {name: e, kind: docker}',
        '  - {name: f, host: h, wake: later}',
        '  - {name: g, host: h, tokenEnv: UNSET_G}',
      ),
    );
    for (const expected of [
      'unknown preference "fastest"',
      'unknown wake policy "maybe"',
      'concurrency.total',
      'the gateway url "gw:4000" has no scheme',
      'node 1 has no name',
      'duplicate node name "a"',
      'node "b" has no host',
      'node "c": port',
      'node "d" is a remote environment, so its engine key must be set',
      'node "e" has kind "docker"',
      'node "f": unknown wake policy "later"',
      'UNSET_G is not set (node "g"',
    ]) {
      expect(found.some((message) => message.includes(expected))).toBe(true);
    }
    expect(found).toHaveLength(12);
  });

  it.each([
    ['unbalanced YAML', 'nodes: [\n  - {name: a', 'line 2'],
    ['a duplicate key', lines('nodes: []', 'nodes: []'), 'keep only one of the two entries'],
    [
      'a node key indented too little',
      lines('nodes:', '  - name: a', '   host: h'),
      'line 3 ("   host: h"): not valid YAML: sequence item without - indicator: indent with spaces',
    ],
    [
      'a node key indented too far',
      lines('nodes:', '  - name: a', '      host: h'),
      'line 2 ("  - name: a"): not valid YAML: nested mappings are not allowed in compact mappings: indent with spaces',
    ],
    ['a tab', lines('nodes:', '\t- name: a'), 'tabs are not allowed as indentation'],
  ])('refuses %s as not YAML, ending with what to fix', (_name, text, expected) => {
    const [message, ...rest] = problems(text);
    expect(rest).toEqual([]);
    expect(message).toMatch(/^fleet\.yaml line \d+ .*: not valid YAML: /);
    expect(message).toContain(expected);
    expect(message).not.toMatch(/[:\n]$/);
  });

  it.each([
    ['plain text', 'just some text'],
    ['a list', '- a\n- b\n'],
    ['an empty file', ''],
  ])('refuses %s: not a mapping', (_name, text) => {
    expect(problems(text)).toEqual(['fleet.yaml: expected a mapping with nodes:']);
  });

  it('carries the fleet error code', () => {
    const result = parseFleet('nodes: []', 'fleet.yaml', NO_VARIABLES);
    expect(result.ok ? undefined : result.code).toBe('ERR_FLEET');
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(() => parseFleet(text, 'fleet.yaml', NO_VARIABLES)).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });

  it('never throws on arbitrary values in any field', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        fc.record(
          {
            prefer: value,
            wake: value,
            concurrency: value,
            gateway: value,
            nodes: fc.oneof(
              value,
              fc.array(
                fc.record(
                  {
                    name: fc.oneof(fc.string(), value),
                    host: value,
                    port: value,
                    kind: value,
                    engine: value,
                    tags: value,
                    file: value,
                    wake: value,
                    tokenEnv: value,
                    engineTokenEnv: value,
                  },
                  { requiredKeys: [] },
                ),
                { maxLength: 4 },
              ),
            ),
          },
          { requiredKeys: [] },
        ),
        (document) => {
          // JSON is YAML, so every record is a fleet file of some shape.
          const text = JSON.stringify(document);
          expect(() => parseFleet(text, 'fleet.yaml', NO_VARIABLES)).not.toThrow();
        },
      ),
      { numRuns: 200 },
    );
  });
});
