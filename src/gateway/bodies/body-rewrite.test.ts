import { describe, expect, it } from 'vitest';

import { rewriteBody } from './body-rewrite.ts';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const read = (body: Buffer): unknown => JSON.parse(body.toString('utf8'));

describe('rewriteBody', () => {
  it('strips, then sets, then writes the model last', () => {
    const body = json({ model: 'fast', temperature: 1, top_k: 40, messages: [] });
    const out = rewriteBody(body, {
      model: 'qwen',
      strip: ['top_k', 'temperature'],
      set: { temperature: 0.2, model: 'ignored', max_tokens: 1 },
    });
    expect(read(out)).toEqual({ model: 'qwen', temperature: 0.2, messages: [], max_tokens: 1 });
  });

  it('sets a key a strip removed, since set comes after strip', () => {
    const out = rewriteBody(json({ a: 1 }), { strip: ['a'], set: { a: 2 } });
    expect(read(out)).toEqual({ a: 2 });
  });

  it('sets a nested value as given and a key named __proto__ as a plain key', () => {
    const change = JSON.parse(
      '{"__proto__": {"polluted": true}, "chat_template_kwargs": {"enable_thinking": false}}',
    ) as Record<string, unknown>;
    const out = rewriteBody(json({ model: 'm' }), { set: change });
    expect(out.toString()).toBe(
      '{"model":"m","__proto__":{"polluted":true},"chat_template_kwargs":{"enable_thinking":false}}',
    );
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each([['not json'], ['[1,2]'], ['"text"'], ['null'], ['']])(
    'returns a body that is no JSON object unchanged: %j',
    (text) => {
      const body = Buffer.from(text);
      expect(rewriteBody(body, { model: 'x', set: { a: 1 } })).toBe(body);
    },
  );
});
