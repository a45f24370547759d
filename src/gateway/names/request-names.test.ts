/**
 * docs/design.md D31 at a request: a variant placed as its model; an alias or a variant sent under
 * the node's served name; the node's params, then the variant's, in one change; nothing at all for
 * a plain name on a node without params, and no table for a fleet without names.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import { rewriteBody } from '../bodies/body-rewrite.ts';
import { RequestNames } from './request-names.ts';

const fleet = {
  nodes: [
    {
      ...daemonNode('chat', { host: 'h' }),
      aliases: ['gpt-4o'],
      params: { set: { temperature: 0.6, top_p: 0.9 }, strip: ['top_k'] },
    },
    { ...daemonNode('embed', { host: 'h' }), aliases: ['text-embedding-3-small'] },
    daemonNode('plain', { host: 'h' }),
  ],
  variants: [
    { name: 'fast', model: 'gpt-4o', set: { max_tokens: 1 }, strip: ['temperature'] },
    { name: 'embed-v', model: 'embed-served' },
  ],
};
const served = new Map([
  ['chat', 'qwen3'],
  ['embed', 'embed-served'],
]);
const names = RequestNames.of(fleet, (node) => served.get(node)) as RequestNames;

describe('RequestNames', () => {
  it('places a variant as its model and every other name as itself', () => {
    expect(names.route('fast')).toBe('gpt-4o');
    expect(names.route('gpt-4o')).toBe('gpt-4o');
    expect(names.route('qwen3')).toBe('qwen3');
  });

  it('changes nothing for a plain name on a node without params', () => {
    expect(names.change('plain-model', 'plain')).toBeUndefined();
    expect(names.change('embed-served', 'embed')).toBeUndefined();
  });

  it("sends an alias under the node's served name, with the node's params", () => {
    expect(names.change('text-embedding-3-small', 'embed')).toEqual({ model: 'embed-served' });
    expect(names.change('gpt-4o', 'chat')).toEqual({
      set: { temperature: 0.6, top_p: 0.9 },
      strip: ['top_k'],
      model: 'qwen3',
    });
    expect(names.change('qwen3', 'chat')).toEqual({
      set: { temperature: 0.6, top_p: 0.9 },
      strip: ['top_k'],
    });
  });

  it("applies a variant's changes after the node's", () => {
    const body = Buffer.from(
      JSON.stringify({ model: 'fast', temperature: 1, top_k: 3, messages: [] }),
    );
    const change = names.change('fast', 'chat');
    expect(change).toBeDefined();
    expect(JSON.parse(rewriteBody(body, change ?? {}).toString())).toEqual({
      model: 'qwen3',
      messages: [],
      top_p: 0.9,
      max_tokens: 1,
    });
    expect(names.change('embed-v', 'embed')).toEqual({ model: 'embed-served' });
  });

  it('keeps the placed name when the served name is not known yet', () => {
    const unknown = RequestNames.of(fleet, () => undefined) as RequestNames;
    expect(unknown.change('fast', 'chat')?.model).toBe('gpt-4o');
  });

  it('builds nothing for a fleet file without aliases, params or variants', () => {
    expect(RequestNames.of({ nodes: [daemonNode('a', { host: 'h' })] }, () => 'x')).toBeUndefined();
  });
});
