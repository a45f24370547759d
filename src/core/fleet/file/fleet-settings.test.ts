/**
 * The fleet file's settings: wake policies (YAML 1.2), prefer, concurrency and the gateway
 * section with its CORS origins.
 */
import { describe, expect, it } from 'vitest';

import {
  lines,
  oneNode,
  parsed,
  problems,
} from '../../../../test/support/project-files/fleet-text.ts';

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

  it('reads cors origins, with or without a url (docs/design.md D22)', () => {
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
