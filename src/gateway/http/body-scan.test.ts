/** The large-body scan agrees with JSON.parse wherever it answers, and defers where it cannot. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { scanModelRequest } from './body-scan.ts';

const scan = (text: string): ReturnType<typeof scanModelRequest> =>
  scanModelRequest(Buffer.from(text, 'utf8'));

describe('scanModelRequest', () => {
  it('finds the model and stream flag wherever they sit, past a large prompt', () => {
    const prompt = 'a "quoted" \\\\ word, {not: [json]} '.repeat(40_000);
    const body = JSON.stringify({
      messages: [{ role: 'user', content: prompt }],
      temperature: -1.5e3,
      stop: null,
      model: 'qwen/3-b',
      stream: true,
    });
    expect(scan(body)).toEqual({ model: 'qwen/3-b', streaming: true });
    expect(scan(` {"model" : "m" , "stream":false}\n`)).toEqual({ model: 'm', streaming: false });
    expect(scan('{"stream":"true","model":"m"}')).toEqual({ model: 'm', streaming: false });
  });

  it('takes the last of repeated keys, as JSON.parse does', () => {
    expect(scan('{"model":"a","stream":true,"model":"b","stream":1}')).toEqual({
      model: 'b',
      streaming: false,
    });
  });

  it.each([
    ['not an object', '["model","m"]'],
    ['no model', '{"stream":true}'],
    ['an empty model', '{"model":""}'],
    ['a model that is not a string', '{"model":7}'],
    ['an escaped model', '{"model":"a\\u0062"}'],
    ['an escaped key', '{"mod\\u0065l":"m"}'],
    ['a missing comma', '{"model":"m" "stream":true}'],
    ['a trailing comma', '{"model":"m",}'],
    ['an unclosed string', '{"model":"m","x":"abc}'],
    ['mismatched brackets', '{"model":"m","x":[{]}'],
    ['a bare word', '{"model":"m","x":yes}'],
    ['a bad number', '{"model":"m","x":01}'],
    ['text after the object', '{"model":"m"} {}'],
    ['an empty object', '{}'],
  ])('defers to a full parse for %s', (_, text) => {
    expect(scan(text)).toBeUndefined();
  });

  it('never disagrees with JSON.parse on the model and stream of an object', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.string({ minLength: 1 }),
        fc.option(fc.jsonValue()),
        (rest, model, stream) => {
          const text = JSON.stringify({ ...rest, model, ...(stream === null ? {} : { stream }) });
          const parsed = JSON.parse(text) as { model: unknown; stream?: unknown };
          const scanned = scan(text);
          if (scanned !== undefined) {
            expect(scanned).toEqual({ model: parsed.model, streaming: parsed.stream === true });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
