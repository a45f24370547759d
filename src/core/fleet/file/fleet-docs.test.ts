/**
 * The examples in docs/fleet-file.md are valid fleet files: every ```yaml block that starts with a
 * `# fleet.yaml:` comment is a whole file, and parses into what its text says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { asDaemon } from '../../../../test/support/project-files/fleet-node.ts';
import { type Fleet, parseFleet } from './fleet-file.ts';

const page = readFileSync(
  join(fileURLToPath(import.meta.url), '../../../../../docs/fleet-file.md'),
  'utf8',
);
const examples = [...page.matchAll(/```yaml\n(# fleet\.yaml:[\s\S]*?)```/g)].map(
  (match) => match[1] ?? '',
);
const example = examples[0] ?? '';

/** An example parsed with every variable it names set. */
function parsedText(text: string): Fleet {
  const env = Object.fromEntries(
    [...text.matchAll(/(?:[tT]okenEnv|apiKeyEnv): (\w+)/g)].map((match) => [
      match[1] ?? '',
      'token',
    ]),
  );
  const result = parseFleet(text, 'fleet.yaml', { env, dotenv: {} });
  if (!result.ok) {
    throw new Error(`the example is refused:\n${result.problems.join('\n')}\n${text}`);
  }
  return result.value;
}

/** The example whose first line mentions `title`. */
function parsedExample(title: string): Fleet {
  return parsedText(examples.find((each) => each.split('\n')[0]?.includes(title)) ?? '');
}

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

  it('has a one-GPU example: three models in a group of one, idle stop, one kept warm', () => {
    const fleet = parsedExample('one GPU box');
    expect(fleet.idleStopMs).toBe(600_000);
    expect(fleet.groups).toEqual(new Map([['gpu', { max: 1, minResidencyMs: 30_000 }]]));
    expect(
      fleet.nodes.map((node) => [node.name, node.group, node.keepWarm, node.idleStopMs]),
    ).toEqual([
      ['chat', 'gpu', true, undefined],
      ['coder', 'gpu', undefined, undefined],
      ['vision', 'gpu', undefined, 120_000],
    ]);
  });

  it('has a laptop example that is woken for load and sleeps, its commands argv lists', () => {
    const fleet = parsedExample('laptop');
    expect(fleet.queue).toEqual({ max: 32, timeoutMs: 60_000 });
    expect(fleet.nodes[1]).toMatchObject({
      name: 'laptop',
      scaleOut: true,
      idleStopMs: 1_200_000,
      wakeCommand: ['wakeonlan', 'aa:bb:cc:dd:ee:ff'],
      sleepCommand: ['ssh', 'laptop.lan', 'sudo', 'systemctl', 'suspend'],
    });
  });

  it('has a laptop example: a local small model, the big one on a hosted API under its own id', () => {
    const fleet = parsedExample('a hosted big model beside a local small one');
    const hosted = fleet.nodes.find((node) => node.kind === 'upstream');
    expect(hosted).toMatchObject({
      name: 'hosted',
      url: 'https://openrouter.ai/api/v1',
      apiKeyEnv: 'OPENROUTER_KEY',
      models: { big: 'meta-llama/llama-3.3-70b-instruct' },
    });
  });

  it('has a GPU-box example answering from a hosted copy while its engine wakes', () => {
    const fleet = parsedExample('a GPU box answering from a hosted copy');
    expect(fleet.fallbacks).toEqual(new Map([['qwen', { to: 'hosted', when: ['waking'] }]]));
    expect(fleet.nodes.find((node) => node.name === 'hosted')).toMatchObject({
      slots: 8,
      timeoutMs: 120_000,
    });
  });

  it.each(examples.map((text) => [text.split('\n')[0], text]))('parses %s', (_title, text) => {
    expect(parsedText(text).nodes.length).toBeGreaterThan(0);
  });
});

describe("docs/gateway.md's scheduling example", () => {
  const gatewayPage = readFileSync(
    join(fileURLToPath(import.meta.url), '../../../../../docs/gateway.md'),
    'utf8',
  );
  const text = /```yaml\n(# fleet\.yaml: two nodes serving qwen[\s\S]*?)```/.exec(gatewayPage)?.[1];

  it('parses into the queue and scale-out it describes', () => {
    const fleet = parsedText(text ?? '');
    expect(fleet.queue).toEqual({ max: 16, timeoutMs: 60_000 });
    expect(fleet.scaleOut).toBe(false);
    expect(fleet.nodes.map((node) => [node.name, node.scaleOut])).toEqual([
      ['gpu-a', undefined],
      ['gpu-b', undefined],
      ['gpu-c', true],
    ]);
  });
});
