/**
 * The one body scan: model, stream flag and leading prompt as JSON.parse reads them, on any body,
 * and a leading prompt that stays put as a conversation grows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { affinityKey } from '../../core/fleet/scheduling/requests/affinity-key.ts';
import { scanModelRequest, type ScannedRequest } from './body-scan.ts';

const scan = (text: string, promptBytes?: number): ScannedRequest | undefined =>
  scanModelRequest(Buffer.from(text, 'utf8'), promptBytes);
const bytes = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');
const promptText = (text: string, promptBytes?: number): string | undefined => {
  const body = Buffer.from(text, 'utf8');
  const range = scanModelRequest(body, promptBytes)?.prompt;
  return range === undefined ? undefined : body.toString('utf8', range.start, range.end);
};
const keyOf = (body: Buffer): string | undefined => {
  const range = scanModelRequest(body)?.prompt;
  return range === undefined ? undefined : affinityKey(body, range);
};

const SYSTEM = { role: 'system', content: 'You are a careful "coding" agent.\n\\ Be brief.' };
const FIRST = { role: 'user', content: 'Fix the failing test in src/app.ts' };

function turn(n: number, first = FIRST): Buffer {
  const later = Array.from({ length: n }, (_, index) => [
    { role: 'assistant', content: `step ${index}` },
    { role: 'user', content: `and then ${index}` },
  ]).flat();
  return bytes({ model: 'm', messages: [SYSTEM, first, ...later], stream: true, temperature: 0 });
}

describe('scanModelRequest: model and stream', () => {
  it('finds the model and stream flag wherever they sit, past a large prompt', () => {
    const prompt = 'a "quoted" \\\\ word, {not: [json]} "model": "x" '.repeat(40_000);
    const body = JSON.stringify({
      messages: [{ role: 'user', content: prompt, model: 'nested' }],
      temperature: -1.5e3,
      stop: null,
      model: 'qwen/3-b',
      stream: true,
    });
    expect(scan(body)).toMatchObject({ model: 'qwen/3-b', streaming: true });
    expect(scan(` {"model" : "m" , "stream":false}\n`)).toEqual({ model: 'm', streaming: false });
    expect(scan('{"stream":"true","model":"m"}')).toEqual({ model: 'm', streaming: false });
  });

  it('takes the last of repeated keys and decodes escapes, as JSON.parse does', () => {
    expect(scan('{"model":"a","stream":true,"model":"b","stream":1}')).toEqual({
      model: 'b',
      streaming: false,
    });
    expect(scan('{"model":"a\\u0062\\"c"}')).toEqual({ model: 'ab"c', streaming: false });
    expect(scan('{"mod\\u0065l":"m","str\\u0065am":true}')).toEqual({
      model: 'm',
      streaming: true,
    });
  });

  it.each([
    ['not an object', '["model","m"]'],
    ['no model', '{"stream":true}'],
    ['an empty model', '{"model":""}'],
    ['a model that is not a string', '{"model":7}'],
    ['a model that was replaced by a number', '{"model":"m","model":7}'],
    ['a model with a broken escape', '{"model":"a\\u00"}'],
    ['a missing comma', '{"model":"m" "stream":true}'],
    ['a trailing comma', '{"model":"m",}'],
    ['a trailing comma in a nested array', '{"model":"m","x":[1,]}'],
    ['a missing comma in a nested array', '{"model":"m","x":[1 2]}'],
    ['a missing colon in a nested object', '{"model":"m","x":{"a" 1}}'],
    ['a bare key in a nested object', '{"model":"m","x":{a:1}}'],
    ['an unclosed string', '{"model":"m","x":"abc}'],
    ['mismatched brackets', '{"model":"m","x":[{]}'],
    ['a bare word', '{"model":"m","x":yes}'],
    ['a bad number', '{"model":"m","x":01}'],
    ['a number without digits after its point', '{"model":"m","x":1.}'],
    ['text after the object', '{"model":"m"} {}'],
    ['an unclosed object', '{"model":"m"'],
    ['an empty object', '{}'],
    ['an empty body', ''],
  ])('defers to a full parse for %s', (_, text) => {
    expect(scan(text)).toBeUndefined();
  });

  it('leaves what a string holds to the engine: it is skipped, not read', () => {
    // JSON.parse refuses a raw control character in a string; finding it would cost a look at
    // every byte of a prompt (json-skim.ts).
    expect(scan('{"model":"m","x":"a\tb"}')).toEqual({ model: 'm', streaming: false });
  });
});

describe('scanModelRequest: the leading prompt', () => {
  it('spans the messages through the first user message', () => {
    // Up to the end of that message: the array's close is not part of it.
    expect(JSON.parse(`${promptText(turn(3).toString())}]`) as unknown).toEqual([SYSTEM, FIRST]);
  });

  it('takes the whole array when no message is from the user', () => {
    const text = JSON.stringify({ messages: [SYSTEM], model: 'm' });
    expect(JSON.parse(promptText(text) ?? '') as unknown).toEqual([SYSTEM]);
  });

  it("takes a completion prompt's first bytes", () => {
    const text = JSON.stringify({ model: 'm', prompt: 'x'.repeat(5_000) });
    expect(promptText(text, 100)).toBe(`"${'x'.repeat(99)}`);
    expect(promptText('{"model":"m","prompt":"hi"}')).toBe('"hi"');
  });

  it('reads only top-level keys, past nested ones, escapes and keys spelt in strings', () => {
    const text = JSON.stringify({
      tools: [{ messages: [FIRST] }],
      'a"b': { prompt: 1 },
      note: '"messages":[{"role":"user"}]',
      messages: [FIRST],
      model: 'm',
    });
    expect(JSON.parse(`${promptText(text)}]`) as unknown).toEqual([FIRST]);
  });

  it.each([
    ['no prompt', '{"model":"m"}'],
    ['an empty array', '{"model":"m","messages":[]}'],
    ['a message that is not an object', '{"model":"m","messages":["hello",{"role":"user"}]}'],
  ])('finds none in %s', (_, text) => {
    expect(scan(text)).toBeDefined();
    expect(promptText(text)).toBeUndefined();
  });
});

describe('the affinity key of a scanned body', () => {
  it('is the same on every turn of a conversation and differs between conversations', () => {
    const key = keyOf(turn(0));
    expect(key).toMatch(/^[0-9a-f]{8}$/);
    expect([1, 5, 20].map((n) => keyOf(turn(n)))).toEqual([key, key, key]);
    expect(keyOf(turn(2, { role: 'user', content: 'Add a README' }))).not.toBe(key);
  });

  it('tells apart long prompts that differ only at the end of the first question', () => {
    const system = { role: 'system', content: 'shared '.repeat(5_000) };
    const ask = (content: string): Buffer =>
      bytes({ model: 'm', messages: [system, { role: 'user', content }] });
    expect(keyOf(ask('one'))).not.toBe(keyOf(ask('two')));
    expect(keyOf(ask('one'))).toBe(keyOf(ask('one')));
  });

  it('is stable under appended turns', () => {
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
          expect(keyOf(bytes({ model: 'm', messages: [...lead, ...after] }))).toBe(
            keyOf(bytes({ model: 'm', messages: lead })),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
