/**
 * docs/design.md D25 `busy`: the requests in the engine's slots at a scrape, per metrics dialect.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { busyOf } from './engine-metrics.ts';
import { parsePrometheus } from './prometheus.ts';

const fixture = (name: string): string =>
  readFileSync(
    join(fileURLToPath(import.meta.url), '../../../../test/fixtures/metrics', name),
    'utf8',
  );

describe('busyOf', () => {
  it('reads a real llama-server 0.7.0 exposition: none processing', () => {
    expect(busyOf('llamacpp', parsePrometheus(fixture('llamacpp-0.7.0.txt')))).toBe(0);
  });

  it('counts llama.cpp requests processing, not the deferred ones waiting for a slot', () => {
    const text = 'llamacpp:requests_processing 2\nllamacpp:requests_deferred 3\n';
    expect(busyOf('llamacpp', parsePrometheus(text))).toBe(2);
  });

  it('sums vLLM requests running over every label set, not the waiting ones', () => {
    expect(busyOf('vllm', parsePrometheus(fixture('vllm.txt')))).toBe(2 + 1);
  });

  it('is unknown when the scrape does not carry the series', () => {
    expect(busyOf('llamacpp', parsePrometheus('llamacpp:requests_deferred 1\n'))).toBeUndefined();
    expect(busyOf('vllm', parsePrometheus(fixture('llamacpp-0.7.0.txt')))).toBeUndefined();
  });
});
