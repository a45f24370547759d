/**
 * Usage read from real llama-server replies (captured from `.cache/engines/bin/llama-server` on
 * the tiny model: test/fixtures/replies), streamed and not, and vLLM's shape; a reply without
 * usage reports none rather than zero tokens.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it, vi } from 'vitest';

import { ReplyTail, usageOf } from './reply-usage.ts';

const fixture = (name: string): string =>
  readFileSync(
    join(fileURLToPath(import.meta.url), '../../../../test/fixtures/replies', name),
    'utf8',
  );

/** The reply as the relay passes it on: in chunks of `size` bytes. */
function tapped(text: string, size: number): ReplyTail {
  const tail = new ReplyTail();
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) {
    tail.data(bytes.subarray(at, at + size));
  }
  return tail;
}

describe('reply usage', () => {
  it("reads a llama-server JSON reply's usage", () => {
    expect(tapped(fixture('llama-server-chat.json'), 7).usage()).toEqual({
      promptTokens: 57,
      completionTokens: 4,
      cachedTokens: 0,
    });
  });

  it("reads a stream's final chunk: usage with include_usage, cached from timings", () => {
    expect(tapped(fixture('llama-server-chat-stream-usage.txt'), 64).usage()).toEqual({
      promptTokens: 57,
      completionTokens: 3,
      cachedTokens: 56,
    });
  });

  it("reads a stream without usage from llama-server's timings, cached tokens included in the prompt", () => {
    expect(tapped(fixture('llama-server-chat-stream.txt'), 1).usage()).toEqual({
      promptTokens: 57,
      completionTokens: 3,
      cachedTokens: 56,
    });
  });

  it("reads vLLM's cached tokens from usage.prompt_tokens_details", () => {
    const body = JSON.stringify({
      id: 'x',
      choices: [{ message: { content: 'a "usage": {' } }],
      usage: {
        prompt_tokens: 20,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 16 },
      },
    });
    expect(usageOf(body)).toEqual({ promptTokens: 20, completionTokens: 5, cachedTokens: 16 });
  });

  it('reports none for a reply without usage, an error or nothing at all', () => {
    expect(usageOf('{"choices":[{"message":{"content":"hi"}}]}')).toBeUndefined();
    expect(usageOf('{"error":{"code":500,"message":"boom"}}')).toBeUndefined();
    expect(new ReplyTail().usage()).toBeUndefined();
  });

  it('reports none for counts that are not whole numbers, or that the reply cut off', () => {
    expect(usageOf('{"usage":{"prompt_tokens":2.5,"completion_tokens":1}}')).toBeUndefined();
    expect(usageOf('{"usage":{"prompt_tokens":"2","completion_tokens":1}}')).toBeUndefined();
    expect(usageOf('{"usage":{"prompt_tokens":-2,"completion_tokens":1}}')).toBeUndefined();
    expect(usageOf('{"usage":{"prompt_tokens":12,"completion_tokens":3')).toBeUndefined();
    expect(usageOf('{"usage":{"prompt_tokens": 12,\n "completion_tokens": 3}}')).toEqual({
      promptTokens: 12,
      completionTokens: 3,
      cachedTokens: 0,
    });
  });

  it('keeps only the tail of a long stream, and still finds the final chunk', () => {
    const long = `${'data: {"choices":[{"delta":{"content":"x"}}]}\n\n'.repeat(5_000)}${fixture('llama-server-chat-stream.txt')}`;
    const tail = tapped(long, 100);
    expect(tail.usage()).toEqual({ promptTokens: 57, completionTokens: 3, cachedTokens: 56 });
  });

  it('reads as text only the reply from its last usage report on', () => {
    const reply = fixture('llama-server-chat.json');
    const long = reply.replace('"content":"', `"content":"${'word '.repeat(2_000)}`);
    const tail = tapped(long, 4_096);
    const decode = vi.spyOn(Buffer.prototype, 'toString');
    const usage = tail.usage();
    const decoded = decode.mock.results.map((result) => String(result.value).length);
    decode.mockRestore();
    expect(usage).toEqual({ promptTokens: 57, completionTokens: 4, cachedTokens: 0 });
    expect(Math.max(...decoded)).toBeLessThan(1_000);
  });
});
