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
   * The usage the reply reported, or undefined when it reported none. Only the bytes from the
   * earlier of the two reports' last keys on are read as text, not a long reply's whole tail.
   */
  usage(): ReplyUsage | undefined {
    if (this.size === 0) {
      return undefined;
    }
    const bytes =
      this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    const usage = bytes.lastIndexOf(USAGE_KEY);
    const timings = bytes.lastIndexOf(TIMINGS_KEY);
    if (usage < 0 && timings < 0) {
      return undefined;
    }
    // Each key starts with `"`: a character boundary in UTF-8.
    const from = usage < 0 ? timings : timings < 0 ? usage : Math.min(usage, timings);
    return usageOf(bytes.toString('utf8', from));
  }
}

/** The JSON object that follows the last `"<key>":` in `text`, parsed; undefined if none is whole. */
function lastObject(text: string, key: string): Record<string, unknown> | undefined {
  const at = text.lastIndexOf(`"${key}":`);
  if (at < 0) {
    return undefined;
  }
  const start = text.indexOf('{', at);
  if (start < 0) {
    return undefined;
  }
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') {
        index += 1;
      } else if (char === '"') {
        inString = false;
      }
    } else if (char === '"') {
      inString = true;
    } else if (char === '{') {
      depth += 1;
    } else if (char === '}') {
      depth -= 1;
      if (depth === 0) {
        try {
          return JSON.parse(text.slice(start, index + 1)) as Record<string, unknown>;
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** The usage in a reply's tail (see the module comment); undefined when it reported none. */
export function usageOf(tail: string): ReplyUsage | undefined {
  const usage = lastObject(tail, 'usage');
  const timings = lastObject(tail, 'timings');
  const cacheN = count(timings?.['cache_n']);
  const prompt = count(usage?.['prompt_tokens']);
  const completion = count(usage?.['completion_tokens']);
  if (prompt !== undefined && completion !== undefined) {
    const details = usage?.['prompt_tokens_details'];
    const cached =
      cacheN ??
      count(
        typeof details === 'object' && details !== null
          ? (details as Record<string, unknown>)['cached_tokens']
          : undefined,
      ) ??
      0;
    return { promptTokens: prompt, completionTokens: completion, cachedTokens: cached };
  }
  const promptN = count(timings?.['prompt_n']);
  const predictedN = count(timings?.['predicted_n']);
  if (promptN === undefined || predictedN === undefined) {
    return undefined;
  }
  // llama-server's prompt_n counts only what it evaluated; the cached part is cache_n.
  const cached = cacheN ?? 0;
  return { promptTokens: promptN + cached, completionTokens: predictedN, cachedTokens: cached };
}
