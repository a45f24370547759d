/**
 * Upstream nodes (docs/design.md D30): a base URL with the models it serves, its key from a
 * variable, slots and a reply bound; every key that starts, stops, wakes or places a process is
 * refused for it, naming the node, the key and the closest key it may use; and its keys are
 * refused for every other kind.
 */
import { describe, expect, it } from 'vitest';

import {
  lines,
  parsed,
  problems,
  withVariables,
} from '../../../../test/support/project-files/fleet-text.ts';

const upstream = (...nodeLines: string[]): string =>
  lines('nodes:', '  - name: hosted', '    kind: upstream', ...nodeLines.map((l) => `    ${l}`));

describe('upstream nodes', () => {
  it('reads a list of models as names served under their own ids, with a 10m reply bound', () => {
    expect(parsed(upstream('url: https://api.example.com/v1/', 'models: [a, b]')).nodes).toEqual([
      {
        name: 'hosted',
        kind: 'upstream',
        url: 'https://api.example.com/v1',
        models: { a: 'a', b: 'b' },
        timeoutMs: 600_000,
        wake: 'off',
        ownWake: false,
      },
    ]);
  });

  it('reads a map of served names to upstream ids, its key, slots, timeout and tags', () => {
    const result = withVariables(
      upstream(
        'url: http://127.0.0.1:8000/v1',
        'apiKeyEnv: HOSTED_KEY',
        'models: {big: vendor/big-70b-instruct}',
        'slots: 8',
        'timeout: 90s',
        'tags: {where: cloud}',
      ),
      { HOSTED_KEY: 'sk-secret' },
    );
    expect(result.ok && result.value.nodes[0]).toEqual({
      name: 'hosted',
      kind: 'upstream',
      url: 'http://127.0.0.1:8000/v1',
      apiKeyEnv: 'HOSTED_KEY',
      apiKey: 'sk-secret',
      models: { big: 'vendor/big-70b-instruct' },
      slots: 8,
      timeoutMs: 90_000,
      tags: { where: 'cloud' },
      wake: 'off',
      ownWake: false,
    });
  });

  it('needs a url of http or https and models, naming the node', () => {
    const found = problems(upstream('url: ftp://x/v1'));
    expect(found).toContainEqual(expect.stringContaining('node "hosted": url "ftp://x/v1"'));
    expect(found).toContainEqual(
      expect.stringContaining('node "hosted" is an upstream node, so it needs models'),
    );
    expect(problems(upstream('models: [a]'))).toContainEqual(
      expect.stringContaining('node "hosted" is an upstream node, so it needs url'),
    );
  });

  it('refuses credentials or a query in the url, a bad slots, timeout or model entry', () => {
    const found = problems(
      upstream('url: https://user:pw@x/v1', 'models: {a: 3}', 'slots: 0', 'timeout: soon'),
    );
    expect(found).toContainEqual(expect.stringContaining('plain base URL'));
    expect(found).toContainEqual(expect.stringContaining('models must list served names'));
    expect(found).toContainEqual(expect.stringContaining('slots must be a whole number'));
    expect(found).toContainEqual(expect.stringContaining('timeout must be a duration'));
  });

  it('says which variable is unset, never a value', () => {
    const result = withVariables(
      upstream('url: http://h/v1', 'models: [a]', 'apiKeyEnv: NOPE'),
      {},
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.join('\n')).toContain(
      'NOPE is not set (node "hosted", apiKeyEnv)',
    );
  });

  it.each([
    ['host: h', 'host'],
    ['port: 4242', 'port'],
    ['tokenEnv: T', 'tokenEnv'],
    ['engineTokenEnv: T', 'engineTokenEnv'],
    ['engine: {port: 1}', 'engine'],
    ['file: Svcfile', 'file'],
    ['instance-type: g5.xlarge', 'instance-type'],
    ['wake: on', 'wake'],
    ['scaleOut: on', 'scaleOut'],
    ['idleStop: 5m', 'idleStop'],
    ['keepWarm: on', 'keepWarm'],
    ['group: g', 'group'],
    ['wakeCommand: [true]', 'wakeCommand'],
    ['sleepCommand: [true]', 'sleepCommand'],
    ['keepCache: on', 'keepCache'],
    ['keepCacheMax: 1GiB', 'keepCacheMax'],
  ])('refuses %s for it, naming the node and the key', (line, key) => {
    const found = problems(upstream('url: http://h/v1', 'models: [a]', line));
    expect(found).toContainEqual(
      expect.stringContaining(`node "hosted" is an upstream node, so ${key} does not apply`),
    );
  });

  it('names the closest key it may use where there is one', () => {
    expect(problems(upstream('url: http://h/v1', 'models: [a]', 'tokenEnv: T'))).toContainEqual(
      expect.stringContaining('did you mean "apiKeyEnv"?'),
    );
    expect(problems(upstream('url: http://h/v1', 'models: [a]', 'group: g'))).toContainEqual(
      expect.stringContaining('its keys: name, kind, url, apiKeyEnv, models, slots, timeout, tags'),
    );
  });

  it.each(['daemon', 'local', 'remote'])('refuses its keys on a %s node', (kind) => {
    const text = lines(
      'apiKeyEnv: K',
      'nodes:',
      '  - name: box',
      `    kind: ${kind}`,
      ...(kind === 'daemon' ? ['    host: h'] : kind === 'local' ? ['    file: Svcfile'] : []),
      '    url: http://h/v1',
      '    models: [a]',
    );
    const found = withVariables(text, { K: 'k' });
    expect(!found.ok && found.problems.join('\n')).toContain(
      `node "box" is a ${kind} node, so url does not apply`,
    );
    expect(!found.ok && found.problems.join('\n')).toContain(
      `node "box" is a ${kind} node, so models does not apply`,
    );
  });
});
