/**
 * Fetches a Svcfile or preset from an http(s) URL, bounded in size and time so a wrong URL can
 * neither hang `serve` nor fill memory. Errors name the URL and what went wrong.
 */
import { Agent, type Dispatcher, interceptors, request } from 'undici';

import { SvcError } from '../errors.ts';

export interface FetchLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = { maxBytes: 1024 * 1024, timeoutMs: 15_000 };

let dispatcher: Dispatcher | undefined;

/** One pooled client that follows a few redirects (hosted files often sit behind one). */
function client(): Dispatcher {
  dispatcher ??= new Agent().compose(interceptors.redirect({ maxRedirections: 5 }));
  return dispatcher;
}

export async function fetchText(
  url: string,
  limits: FetchLimits = DEFAULT_FETCH_LIMITS,
): Promise<string> {
  const fail = (why: string, cause?: unknown): SvcError =>
    new SvcError(
      'ERR_FETCH',
      `fetching ${url}: ${why}`,
      cause === undefined ? undefined : { cause },
    );
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    const reply = await request(url, { method: 'GET', signal, dispatcher: client() });
    if (reply.statusCode === 404) {
      await reply.body.dump();
      throw fail('HTTP 404: not found');
    }
    if (reply.statusCode < 200 || reply.statusCode > 299) {
      await reply.body.dump();
      throw fail(`HTTP ${reply.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of reply.body) {
      const bytes = chunk as Buffer;
      size += bytes.length;
      if (size > limits.maxBytes) {
        reply.body.destroy();
        throw fail(`the reply is larger than ${limits.maxBytes} bytes`);
      }
      chunks.push(bytes);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (error instanceof SvcError) {
      throw error;
    }
    if (signal.aborted) {
      throw fail(`no complete reply within ${limits.timeoutMs / 1000} s`, error);
    }
    throw fail(error instanceof Error ? error.message : String(error), error);
  }
}
