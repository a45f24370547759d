/**
 * docs/design.md D31 at start: two nodes answering to one name are refused naming both unless they
 * serve one model (replicas); a variant must build on a served name or alias, once every node's
 * names are known.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import { nameProblems } from './name-claims.ts';

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
