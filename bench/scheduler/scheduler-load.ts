/**
 * The client side of the scheduler benchmark (bench/scheduler/scheduler.ts): a fixed-concurrency run timed
 * end to end, a burst counted by reply status, agent-like sessions that report how much of their
 * prompts llama-server served from its cache, and a streamed request's time to first byte.
 */
import { Agent, request } from 'undici';

/** One connection per caller, so the gateway sees every request at once. */
const agent = new Agent({ connections: 256, keepAliveTimeout: 10_000 });

const chat = (model: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1, ...extra });

/** One chat completion POST on the shared agent. */
const complete = (url: string, body: string): ReturnType<typeof request> =>
  request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    dispatcher: agent,
  });

export interface Makespan {
  readonly ms: number;
  /** Replies by HTTP status. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Replies by the engine port that served them (the fake engine's `x-fake-engine-port`). */
  readonly byPort: Readonly<Record<string, number>>;
}

/** `total` requests, `concurrency` callers each sending the next as soon as its last ended. */
export async function makespan(
  url: string,
  model: string,
  total: number,
  concurrency: number,
): Promise<Makespan> {
  const statuses: Record<string, number> = {};
  const byPort: Record<string, number> = {};
  let next = 0;
  const caller = async (): Promise<void> => {
    while (next < total) {
      next += 1;
      try {
        const reply = await complete(url, chat(model));
        await reply.body.dump();
        const port = String(reply.headers['x-fake-engine-port'] ?? 'none');
        statuses[reply.statusCode] = (statuses[reply.statusCode] ?? 0) + 1;
        byPort[port] = (byPort[port] ?? 0) + 1;
      } catch {
        statuses['lost'] = (statuses['lost'] ?? 0) + 1;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, caller));
  return { ms: performance.now() - started, statuses, byPort };
}

export interface Burst {
  readonly ok: number;
  readonly rateLimited: number;
  /** Of the 429s, those that carried `Retry-After`. */
  readonly retryAfter: number;
  readonly other4xx: number;
  readonly server5xx: number;
  /** No reply at all (connection reset or closed). */
  readonly lost: number;
  /** When the first 200 came, from the moment the burst was sent (ms): at least the hold. */
  readonly firstOkMs: number;
  readonly ms: number;
  /** Other statuses' error codes, as `status code` → count, for the report. */
  readonly codes: Readonly<Record<string, number>>;
}

/** `count` requests sent at once, each on its own connection; replies counted by kind. */
export async function burst(url: string, model: string, count: number): Promise<Burst> {
  const counts = { ok: 0, rateLimited: 0, retryAfter: 0, other4xx: 0, server5xx: 0, lost: 0 };
  const codes: Record<string, number> = {};
  let firstOkMs = Number.NaN;
  const started = performance.now();
  const one = async (): Promise<void> => {
    try {
      const reply = await complete(url, chat(model));
      const text = await reply.body.text();
      if (reply.statusCode === 200) {
        firstOkMs = Number.isNaN(firstOkMs) ? performance.now() - started : firstOkMs;
        counts.ok += 1;
        return;
      }
      const code = /"code"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? '?';
      const key = `${reply.statusCode} ${code}`;
      codes[key] = (codes[key] ?? 0) + 1;
      if (reply.statusCode === 429) {
        counts.rateLimited += 1;
        counts.retryAfter += reply.headers['retry-after'] === undefined ? 0 : 1;
      } else if (reply.statusCode < 500) {
        counts.other4xx += 1;
      } else {
        counts.server5xx += 1;
      }
    } catch {
      counts.lost += 1;
    }
  };
  await Promise.all(Array.from({ length: count }, one));
  return { ...counts, firstOkMs, ms: performance.now() - started, codes };
}

/** A private, seeded text of about `chars` characters: no two sessions share a prefix. */
function privateText(seed: string, chars: number): string {
  const words = ['alpha', 'brisk', 'cobalt', 'delta', 'ember', 'fjord', 'gale', 'harbor', 'ion'];
  let state = 7;
  for (let index = 0; index < seed.length; index += 1) {
    state = (state * 31 + seed.charCodeAt(index)) >>> 0;
  }
  let text = `You are agent ${seed}. `;
  while (text.length < chars) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text += `${words[state % words.length] ?? 'x'} `;
  }
  return text;
}

export interface CacheShare {
  readonly cached: number;
  readonly evaluated: number;
  readonly turns: number;
  readonly errors: number;
}

/**
 * `sessions` agent-like conversations at once, each a long private system prompt and `turns`
 * turns that grow it; sums llama-server's `timings.cache_n` and `timings.prompt_n` per reply.
 */
export async function sessions(
  url: string,
  model: string,
  count: number,
  turns: number,
  tag: string,
): Promise<CacheShare> {
  const total = { cached: 0, evaluated: 0, turns: 0, errors: 0 };
  const session = async (index: number): Promise<void> => {
    const messages: { role: string; content: string }[] = [
      { role: 'system', content: privateText(`${tag}-${index}`, 900) },
    ];
    for (let turn = 1; turn <= turns; turn += 1) {
      messages.push({ role: 'user', content: `Step ${turn}: read file ${index}-${turn}.ts next.` });
      const reply = await complete(
        url,
        JSON.stringify({ model, messages, max_tokens: 8, temperature: 0 }),
      );
      const body = (await reply.body.json()) as {
        choices?: { message?: { content?: string } }[];
        timings?: { cache_n?: number; prompt_n?: number };
      };
      if (reply.statusCode !== 200 || body.timings === undefined) {
        total.errors += 1;
        return;
      }
      total.cached += body.timings.cache_n ?? 0;
      total.evaluated += body.timings.prompt_n ?? 0;
      total.turns += 1;
      messages.push({ role: 'assistant', content: body.choices?.[0]?.message?.content ?? '' });
    }
  };
  await Promise.all(Array.from({ length: count }, (_, index) => session(index)));
  return total;
}

/**
 * A streamed request's time to its first body byte and to its first `data:` event, in ms, and
 * its status. They differ when the gateway holds a stream: it sends SSE comments (wake or queue
 * progress) before the engine's first event.
 */
export async function firstByte(
  url: string,
  model: string,
): Promise<{ ms: number; dataMs: number; status: number }> {
  const started = performance.now();
  const reply = await complete(url, chat(model, { stream: true, max_tokens: 2 }));
  let ms = Number.NaN;
  let dataMs = Number.NaN;
  let text = '';
  for await (const chunk of reply.body) {
    const now = performance.now() - started;
    ms = Number.isNaN(ms) && (chunk as Buffer).length > 0 ? now : ms;
    text += (chunk as Buffer).toString('utf8');
    dataMs = Number.isNaN(dataMs) && /(^|\n)data:/.test(text) ? now : dataMs;
  }
  return { ms, dataMs, status: reply.statusCode };
}

export async function closeLoad(): Promise<void> {
  await agent.close();
}
