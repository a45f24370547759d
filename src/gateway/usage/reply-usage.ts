/**
 * The tokens one reply used, read from the engine's own report (docs/design.md D29): OpenAI's
 * `usage` (llama-server, vLLM: `usage.prompt_tokens_details.cached_tokens`) and llama-server's
 * `timings` (`cache_n`, `prompt_n`, `predicted_n`). Both come last in a reply: at the end of a
 * JSON body, and in the final chunk of a stream (`timings` always, `usage` with
 * `stream_options.include_usage`). So the relay's tap keeps only the reply's tail, never the
 * stream's whole text, and changes nothing it passes on.
 */

/** Token counts of one reply; prompt tokens include the cached ones, as `usage.prompt_tokens` does. */
export interface ReplyUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
}

/** Enough for the final chunk of a stream or the end of a body, usage and timings included. */
const TAIL_BYTES = 16 * 1024;

const USAGE_KEY = Buffer.from('"usage":');
const TIMINGS_KEY = Buffer.from('"timings":');

/** The last bytes of a reply, as the relay passes them on (relay/upstream-reply.ts's tap). */
export class ReplyTail {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  data(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0]?.length ?? 0) >= TAIL_BYTES) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }

  /**
   * The usage the reply reported, or undefined when it reported none. Read from the bytes as they
   * are, from the earlier of the two reports' last keys on: nothing is decoded or parsed, since a
   * model request's end pays for this and only six integers are wanted.
   */
  usage(): ReplyUsage | undefined {
    if (this.size === 0) {
      return undefined;
    }
    const bytes =
      this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    return usageIn(bytes);
  }
}

const KEYS = {
  promptTokens: Buffer.from('"prompt_tokens":'),
  completionTokens: Buffer.from('"completion_tokens":'),
  cachedTokens: Buffer.from('"cached_tokens":'),
  cacheN: Buffer.from('"cache_n":'),
  promptN: Buffer.from('"prompt_n":'),
  predictedN: Buffer.from('"predicted_n":'),
} as const;

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ENDS = new Set([0x2c, 0x7d, 0x20, 0x09, 0x0a, 0x0d]); // , } and white space

/**
 * The whole non-negative integer after the last `key` at or after `from`, or undefined when there
 * is none, or the value is not one (a fraction, a string, a number cut off by the tail's end).
 * A key can only match outside strings: inside one, its quotes would be escaped.
 */
function integerAfter(bytes: Buffer, key: Buffer, from: number): number | undefined {
  const at = bytes.lastIndexOf(key);
  if (at < from) {
    return undefined;
  }
  let index = at + key.length;
  while (index < bytes.length && SPACE.has(bytes[index] as number)) {
    index += 1;
  }
  let value = 0;
  let digits = 0;
  for (; index < bytes.length; index += 1) {
    const byte = bytes[index] as number;
    if (byte < 0x30 || byte > 0x39) {
      break;
    }
    value = value * 10 + (byte - 0x30);
    digits += 1;
  }
  return digits > 0 && index < bytes.length && ENDS.has(bytes[index] as number) ? value : undefined;
}

/** The usage in a reply's bytes (see the module comment); undefined when it reported none. */
function usageIn(bytes: Buffer): ReplyUsage | undefined {
  const usage = bytes.lastIndexOf(USAGE_KEY);
  const timings = bytes.lastIndexOf(TIMINGS_KEY);
  if (usage < 0 && timings < 0) {
    return undefined;
  }
  const from = usage < 0 ? timings : timings < 0 ? usage : Math.min(usage, timings);
  const cacheN = timings < 0 ? undefined : integerAfter(bytes, KEYS.cacheN, timings);
  if (usage >= 0) {
    const prompt = integerAfter(bytes, KEYS.promptTokens, usage);
    const completion = integerAfter(bytes, KEYS.completionTokens, usage);
    if (prompt !== undefined && completion !== undefined) {
      const cached = cacheN ?? integerAfter(bytes, KEYS.cachedTokens, usage) ?? 0;
      return { promptTokens: prompt, completionTokens: completion, cachedTokens: cached };
    }
  }
  const promptN = integerAfter(bytes, KEYS.promptN, from);
  const predictedN = integerAfter(bytes, KEYS.predictedN, from);
  if (timings < 0 || promptN === undefined || predictedN === undefined) {
    return undefined;
  }
  // llama-server's prompt_n counts only what it evaluated; the cached part is cache_n.
  const cached = cacheN ?? 0;
  return { promptTokens: promptN + cached, completionTokens: predictedN, cachedTokens: cached };
}

/** The usage in a reply's text (see the module comment); undefined when it reported none. */
export function usageOf(tail: string): ReplyUsage | undefined {
  return usageIn(Buffer.from(tail));
}
