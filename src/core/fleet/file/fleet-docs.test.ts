/** The example in docs/fleet-file.md is a valid fleet file. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { asDaemon } from '../../../../test/support/fleet-node.ts';
import { parseFleet } from './fleet-file.ts';

const page = readFileSync(
  join(fileURLToPath(import.meta.url), '../../../../../docs/fleet-file.md'),
  'utf8',
);
const example = /```yaml\n([\s\S]*?)```/.exec(page)?.[1] ?? '';

describe('docs/fleet-file.md', () => {
  it('has an example that parses into the fleet it describes', () => {
    const env = { GPU_A_TOKEN: 'a', GPU_B_TOKEN: 'b', ENGINE_KEY: 'k', OPERATOR_TOKEN: 'o' };
    const result = parseFleet(example, 'fleet.yaml', { env, dotenv: {} });
    expect(result.ok ? undefined : result.problems).toBeUndefined();
    if (!result.ok) {
      return;
    }
    expect(result.value.prefer).toBe('idle');
    expect(result.value.concurrency).toEqual({ total: 4, tags: { 'gpu=a100': 2 } });
    expect(result.value.gateway).toEqual({
      url: 'http://gpu-gw:4000',
      tokenEnv: 'GATEWAY_TOKEN',
      ownTokenEnv: true,
      name: 'gpu-gw:4000',
    });
    expect(result.value.cors).toEqual(['https://chat.example']);
    expect(result.value.operator).toEqual({ tokenEnv: 'OPERATOR_TOKEN', token: 'o' });
    expect(result.value.nodes.map((node) => [node.name, asDaemon(node).port, node.wake])).toEqual([
      ['gpu-a', 4242, 'on'],
      ['gpu-b', 4242, 'off'],
    ]);
    expect(result.value.nodes[1]?.engine).toEqual({ port: 8081 });
  });
});
