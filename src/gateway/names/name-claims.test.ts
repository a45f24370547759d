/**
 * docs/design.md D31 at start: two nodes answering to one name are refused naming both unless they
 * serve one model (replicas); a variant must build on a served name or alias, once every node's
 * names are known.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode, localNode } from '../../../test/support/project-files/fleet-node.ts';
import type { Fleet } from '../../core/fleet/file/fleet-file.ts';
import type { NodeConfig } from '../../core/fleet/file/model-name.ts';
import { nameProblems, refuseNameClashes } from './name-claims.ts';

const node = (name: string, aliases?: string[]) => ({
  ...daemonNode(name, { host: 'h' }),
  ...(aliases === undefined ? {} : { aliases }),
});

describe('nameProblems', () => {
  it('refuses an alias claimed by two nodes of different models, naming both', () => {
    const sources = new Map([
      ['a', { names: ['qwen'], model: 'org/qwen' }],
      ['b', { names: ['llama'], model: 'org/llama' }],
    ]);
    expect(nameProblems({ nodes: [node('a', ['chat']), node('b', ['chat'])] }, sources)).toEqual([
      expect.stringContaining(
        'nodes "a" and "b" both answer to "chat" but do not serve the same model',
      ),
    ]);
    expect(nameProblems({ nodes: [node('a'), node('b', ['qwen'])] }, sources)).toEqual([
      expect.stringContaining('nodes "a" and "b" both answer to "qwen"'),
    ]);
  });

  it('lets replicas of one model share their names and aliases', () => {
    const sources = new Map([
      ['a', { names: ['qwen'], model: 'org/qwen' }],
      ['b', { names: ['qwen'], model: 'org/qwen' }],
    ]);
    expect(nameProblems({ nodes: [node('a', ['chat']), node('b', ['chat'])] }, sources)).toEqual(
      [],
    );
  });

  it('refuses a variant on no known name, and one named as a served name', () => {
    const sources = new Map([['a', { names: ['qwen'], model: 'org/qwen' }]]);
    const nodes = [node('a', ['chat'])];
    expect(nameProblems({ nodes, variants: [{ name: 'fast', model: 'chta' }] }, sources)).toEqual([
      expect.stringContaining('variants "fast": model "chta" is no node\'s served name or alias'),
    ]);
    expect(nameProblems({ nodes, variants: [{ name: 'qwen', model: 'chat' }] }, sources)).toEqual([
      expect.stringContaining('variants "qwen": node "a" already answers to "qwen"'),
    ]);
    expect(nameProblems({ nodes, variants: [{ name: 'fast', model: 'qwen' }] }, sources)).toEqual(
      [],
    );
  });

  it('leaves a variant alone while a node without a Svcfile may serve its model', () => {
    const variants = [{ name: 'fast', model: 'elsewhere' }];
    expect(nameProblems({ nodes: [node('a'), node('b')], variants }, new Map())).toEqual([]);
  });
});

describe('refuseNameClashes', () => {
  /** Each node's Svcfile as its source reads it: one served name, and the model file behind it. */
  const models: Readonly<Record<string, string>> = {
    q1: '/models/qwen.gguf',
    q2: '/models/qwen.gguf',
    l1: '/models/llama.gguf',
  };
  const source = (node: { readonly name: string }): Promise<{ readonly config: NodeConfig }> =>
    Promise.resolve({
      config: { runner: 'command', servedModelName: 'chat', modelId: models[node.name] ?? '' },
    });
  const fleetOf = (nodes: Fleet['nodes']): Fleet => ({ nodes, path: 'fleet.yaml' });
  const local = (name: string) => localNode(name, { file: `${name}/Svcfile` });

  it('refuses two local nodes serving one name from different model files, without aliases', async () => {
    await expect(refuseNameClashes(fleetOf([local('q1'), local('l1')]), source)).rejects.toThrow(
      'fleet.yaml: nodes "q1" and "l1" both answer to "chat" but do not serve the same model ("/models/qwen.gguf" and "/models/llama.gguf")',
    );
  });

  it('lets local replicas share it, and leaves daemon nodes to their daemons', async () => {
    await expect(
      refuseNameClashes(fleetOf([local('q1'), local('q2')]), source),
    ).resolves.toBeUndefined();
    const daemons = [
      daemonNode('q1', { host: 'h', file: 'q1/Svcfile' }),
      daemonNode('l1', { host: 'h', file: 'l1/Svcfile' }),
    ];
    await expect(refuseNameClashes(fleetOf(daemons), source)).resolves.toBeUndefined();
  });
});
