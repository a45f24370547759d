/**
 * `keepCache` and `keepCacheMax` in the fleet file (docs/design.md D32): read on local and daemon
 * nodes, refused on a remote environment and with a bad size, each problem naming node and key;
 * and a wake's deploy config carries them.
 */
import { describe, expect, it } from 'vitest';

import { lines, parsed, problems } from '../../../../test/support/project-files/fleet-text.ts';
import { withKeepCache } from './node-keep-cache.ts';

const node = (kind: string, ...nodeLines: string[]): string =>
  lines(
    'apiKeyEnv: HOME',
    'nodes:',
    '  - name: box',
    `    kind: ${kind}`,
    ...(kind === 'local' ? ['    file: Svcfile'] : kind === 'daemon' ? ['    host: h'] : []),
    ...nodeLines.map((line) => `    ${line}`),
  );

describe('keepCache in the fleet file', () => {
  it('reads it on local and daemon nodes, with its bound as written', () => {
    expect(parsed(node('local', 'keepCache: on', 'keepCacheMax: 2GiB')).nodes[0]).toMatchObject({
      keepCache: true,
      keepCacheMax: '2GiB',
    });
    expect(parsed(node('daemon', 'keepCache: off')).nodes[0]).toMatchObject({ keepCache: false });
    expect(parsed(node('local')).nodes[0]).not.toHaveProperty('keepCache');
  });

  it('refuses it on a remote environment, a bad switch, a bad size, and a bound alone', () => {
    expect(problems(node('remote', 'keepCache: on'))).toContainEqual(
      expect.stringContaining(
        'node "box": keepCache does not apply to a remote environment, which runs its engine itself',
      ),
    );
    expect(problems(node('local', 'keepCache: yes'))).toEqual([
      expect.stringContaining('node "box": keepCache must be "on" or "off", not "yes"'),
    ]);
    expect(problems(node('local', 'keepCache: on', 'keepCacheMax: lots'))).toEqual([
      expect.stringContaining(
        'node "box": keepCacheMax must be a size such as 8GiB or 500MB, not "lots"',
      ),
    ]);
    expect(problems(node('local', 'keepCacheMax: 1GiB'))).toEqual([
      expect.stringContaining('node "box": keepCacheMax applies only with keepCache: on'),
    ]);
  });

  it('puts it in the deploy config a wake sends', () => {
    const config = { runner: 'llamacpp' as const, modelId: '/m.gguf' };
    expect(withKeepCache(config, { keepCache: true, keepCacheMax: '1GiB' })).toEqual({
      ...config,
      keepCache: true,
      keepCacheMax: '1GiB',
    });
    expect(withKeepCache(config, { keepCache: false })).toEqual(config);
  });
});
