/**
 * Wait progress for streamed requests: a request with `"stream": true` that has waited 2 s (for a
 * wake or a free slot: one wait, docs/design.md D25) gets its 200 `text/event-stream` headers and
 * then an SSE comment (`: waking <node> (<n> s)`, `: queued for <model>: position <n> (<n> s)`) at
 * least every 5 s until it is sent on, so a proxy in between (nginx cuts a silent
 * connection after 60 s) and the client both see a live connection. The engine's stream then
 * follows in the same reply; a failure after the headers went out becomes one SSE `data:` event
 * with the OpenAI-shaped error (sseError). Non-streamed requests wait silently, as before.
 */

/** How long a streamed request waits before its headers go out. */
export const PROGRESS_AFTER_MS = 2_000;
/** Under the 5 s promised, so a late timer still keeps the promise. */
export const PROGRESS_EVERY_MS = 4_000;

/** The part of a ServerResponse progress writes to. */
export interface ProgressSink {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: string): unknown;
}

/** Timers, injected so the schedule is tested without waiting. */
export interface ProgressTimers {
  now(): number;
  every(ms: number, run: () => void): () => void;
  after(ms: number, run: () => void): () => void;
}

export const realTimers: ProgressTimers = {
  now: () => Date.now(),
  every: (ms, run) => {
    const timer = setInterval(run, ms);
    return () => clearInterval(timer);
  },
  after: (ms, run) => {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};

export interface ProgressOptions {
  readonly sink: ProgressSink;
  /** The SSE comment for a wait this long so far (its own blank line included). */
  readonly comment: (waitedMs: number) => string;
  /** Extra headers for the early 200 (CORS, x-svc-node). */
  readonly headers: () => Record<string, string>;
  readonly timers?: ProgressTimers;
}

/**
 * Awaits `wait`, sending progress to the sink while it takes longer than PROGRESS_AFTER_MS.
 * Resolves or rejects as `wait` does; whether headers went out is `sink.headersSent`.
 */
export async function withWaitProgress<T>(wait: Promise<T>, options: ProgressOptions): Promise<T> {
  const timers = options.timers ?? realTimers;
  const started = timers.now();
  const { sink } = options;
  const send = (): void => {
    if (!sink.destroyed) {
      sink.write(options.comment(timers.now() - started));
    }
  };
  let stopEvery = (): void => undefined;
  const stopAfter = timers.after(PROGRESS_AFTER_MS, () => {
    if (sink.destroyed || sink.headersSent) {
      return;
    }
    sink.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...options.headers(),
    });
    send();
    stopEvery = timers.every(PROGRESS_EVERY_MS, send);
  });
  try {
    return await wait;
  } finally {
    stopAfter();
    stopEvery();
  }
}
