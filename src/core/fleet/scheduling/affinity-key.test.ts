/**
 * The affinity key (GUIDE D25 `affinity`): the same for every turn of one conversation, different
 * for another, read from a bounded prefix of the raw body, and absent where no prompt is found.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { affinityKey, leadingPrompt } from './affinity-key.ts';

const bytes = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const text = (body: Uint8Array, range: { start: number; end: number } | undefined): string =>
  range === undefined ? '' : new TextDecoder().decode(body.subarray(range.start, range.end));

const SYSTEM = { role: 'system', content: 'You are a careful "coding" agent.\n\\ Be brief.' };
const FIRST = { role: 'user', content: 'Fix the failing test in src/app.ts' };

function turn(n: number, first = FIRST): Uint8Array {
  const later = Array.from({ length: n }, (_, index) => [
    { role: 'assistant', content: `step ${index}` },
    { role: 'user', content: `and then ${index}` },
  ]).flat();
  return bytes({ model: 'm', messages: [SYSTEM, first, ...later], stream: true, temperature: 0 });
}

describe('leadingPrompt', () => {
  it('spans the messages through the first user message', () => {
    const body = turn(3);
    // Up to the end of that message: the array's close is not part of it.
    expect(JSON.parse(`${text(body, leadingPrompt(body))}]`) as unknown).toEqual([SYSTEM, FIRST]);
  });

  it('takes the whole array when no message is from the user', () => {
    const body = bytes({ messages: [SYSTEM], model: 'm' });
    expect(JSON.parse(text(body, leadingPrompt(body))) as unknown).toEqual([SYSTEM]);
  });

  it("takes a completion prompt's first bytes", () => {
    const prompt = 'x'.repeat(5_000);
    const body = bytes({ model: 'm', prompt });
    const limits = { scanBytes: 262_144, promptBytes: 100 };
    expect(text(body, leadingPrompt(body, limits))).toBe(`"${'x'.repeat(99)}`);
    expect(text(bytes({ prompt: 'hi' }), leadingPrompt(bytes({ prompt: 'hi' })))).toBe('"hi"');
  });

  it('reads only top-level keys, past nested ones and escapes', () => {
    const body = bytes({ tools: [{ messages: [FIRST] }], 'a"b': { prompt: 1 }, messages: [FIRST] });
    expect(JSON.parse(`${text(body, leadingPrompt(body))}]`) as unknown).toEqual([FIRST]);
  });

  it('reads no further than its bound', () => {
    const long = { role: 'system', content: 'y'.repeat(10_000) };
    const body = bytes({ model: 'm', messages: [long, FIRST] });
    expect(leadingPrompt(body, { scanBytes: 2_000, promptBytes: 1 })).toEqual({
      start: body.indexOf(0x5b),
      end: 2_000,
    });
    // A body that ends inside the bound without closing is not a prompt.
    expect(leadingPrompt(body.subarray(0, 2_000))).toBeUndefined();
  });

  it.each([
    ['no prompt', '{"model":"m"}'],
    ['an empty array', '{"messages":[]}'],
    ['not an object', '[{"messages":[]}]'],
    ['an unclosed string', '{"messages":[{"role":"user","content":"abc}]}'],
    ['a message that is not an object', '{"messages":["hello"]}'],
  ])('finds none in %s', (_, body) => {
    expect(leadingPrompt(new TextEncoder().encode(body))).toBeUndefined();
    expect(affinityKey(new TextEncoder().encode(body))).toBeUndefined();
  });
});

describe('affinityKey', () => {
  it('is the same on every turn of a conversation and differs between conversations', () => {
    const key = affinityKey(turn(0));
    expect(key).toMatch(/^[\w-]{16}$/);
    expect([1, 5, 20].map((n) => affinityKey(turn(n)))).toEqual([key, key, key]);
    expect(affinityKey(turn(2, { role: 'user', content: 'Add a README' }))).not.toBe(key);
  });

  it('tells apart long prompts that differ only at the end of the first question', () => {
    const system = { role: 'system', content: 'shared '.repeat(5_000) };
    const ask = (content: string): Uint8Array =>
      bytes({ messages: [system, { role: 'user', content }] });
    expect(affinityKey(ask('one'))).not.toBe(affinityKey(ask('two')));
    expect(affinityKey(ask('one'))).toBe(affinityKey(ask('one')));
  });

  it('never throws, whatever the bytes, and is stable under appended turns', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (body) => {
        expect(() => affinityKey(body, { scanBytes: 200, promptBytes: 50 })).not.toThrow();
      }),
      { numRuns: 300 },
    );
    const message = fc.record({
      role: fc.constantFrom('system', 'user', 'assistant'),
      content: fc.string(),
    });
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 4 }),
        fc.string(),
        fc.array(message, { maxLength: 4 }),
        (before, question, after) => {
          const lead = [
            ...before.filter((m) => m.role !== 'user'),
            { role: 'user', content: question },
          ];
          expect(affinityKey(bytes({ model: 'm', messages: [...lead, ...after] }))).toBe(
            affinityKey(bytes({ model: 'm', messages: lead })),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
