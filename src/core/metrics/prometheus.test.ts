import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { tokenStats } from './engine-metrics.ts';
import { parsePrometheus } from './prometheus.ts';

const fixture = (name: string): string =>
  readFileSync(
    join(fileURLToPath(import.meta.url), '../../../../test/fixtures/metrics', name),
    'utf8',
  );

describe('parsePrometheus', () => {
  it('reads samples, skipping comments, HELP and TYPE lines', () => {
    expect(parsePrometheus('# HELP a x\n# TYPE a counter\na 1\n\nb_total 2.5\n')).toEqual([
      { name: 'a', labels: {}, value: 1 },
      { name: 'b_total', labels: {}, value: 2.5 },
    ]);
  });

  it('reads labels, escaped quotes, backslashes and newlines inside them', () => {
    expect(parsePrometheus('m{a="x",b="say \\"hi\\"",c="1\\\\2",d="l1\\nl2",} 3')).toEqual([
      { name: 'm', labels: { a: 'x', b: 'say "hi"', c: '1\\2', d: 'l1\nl2' }, value: 3 },
    ]);
  });

  it('reads NaN, +Inf, -Inf, exponents and a trailing timestamp', () => {
    const samples = parsePrometheus('a NaN\nb +Inf\nc -Inf\nd 1.5e3\ne 7 1795307570000\n');
    expect(samples.map((sample) => sample.value)).toEqual([
      Number.NaN,
      Infinity,
      -Infinity,
      1500,
      7,
    ]);
  });

  it('skips malformed lines instead of failing', () => {
    expect(
      parsePrometheus('ok 1\nbad{a="x" 2\nnovalue\nx y\n9starts 1\nalso_ok 2 notatime\nfine 3\n'),
    ).toEqual([
      { name: 'ok', labels: {}, value: 1 },
      { name: 'fine', labels: {}, value: 3 },
    ]);
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        expect(Array.isArray(parsePrometheus(text))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

describe('tokenStats', () => {
  it('reads a real llama-server 0.7.0 exposition (captured with --metrics)', () => {
    expect(tokenStats('llamacpp', parsePrometheus(fixture('llamacpp-0.7.0.txt')))).toEqual({
      running: 0,
      counter: 7 + 5 + 5,
      promptTokens: 7,
      generationTokens: 5,
    });
  });

  it('has no request count for llama-server, which exposes none', () => {
    expect(
      tokenStats('llamacpp', parsePrometheus(fixture('llamacpp-0.7.0.txt'))),
    ).not.toHaveProperty('requests');
  });

  it('sums vLLM series over every label set and ignores _created and NaN samples', () => {
    expect(tokenStats('vllm', parsePrometheus(fixture('vllm.txt')))).toEqual({
      running: 2 + 1 + 4 + 0,
      counter: 2000 + 3500 + 14,
      promptTokens: 2000,
      generationTokens: 3500,
      requests: 14,
    });
  });

  it('counts deferred llama.cpp requests as running', () => {
    const text = 'llamacpp:requests_processing 2\nllamacpp:requests_deferred 3\n';
    expect(tokenStats('llamacpp', parsePrometheus(text))).toEqual({ running: 5 });
  });

  it('returns undefined when the scrape holds none of the dialect series', () => {
    expect(tokenStats('vllm', parsePrometheus(fixture('llamacpp-0.7.0.txt')))).toBeUndefined();
    expect(tokenStats('llamacpp', [])).toBeUndefined();
  });
});
