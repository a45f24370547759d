import { describe, expect, it } from 'vitest';

import { formatCommand, quoteToken } from './shell-quote.ts';

describe('shell quoting', () => {
  it.each([
    ['llama-server', 'llama-server'],
    ['org/model:Q4_K_M', 'org/model:Q4_K_M'],
    ['--ctx-size=4096', '--ctx-size=4096'],
    ['two words', "'two words'"],
    ["it's", "'it'\\''s'"],
    ['', "''"],
    ['$HOME', "'$HOME'"],
    ['a;b', "'a;b'"],
    ['~/models/x.gguf', "'~/models/x.gguf'"],
  ])('quotes %j as %s', (token, quoted) => {
    expect(quoteToken(token)).toBe(quoted);
  });

  it('joins tokens with single spaces', () => {
    expect(formatCommand(['vllm', 'serve', 'org/m', '--chat-template', 'a b'])).toBe(
      "vllm serve org/m --chat-template 'a b'",
    );
  });
});
