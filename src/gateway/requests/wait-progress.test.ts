/** The wake-progress schedule with injected timers: nothing for 2 s, then headers and comments. */
import { describe, expect, it } from 'vitest';

import {
  PROGRESS_AFTER_MS,
  PROGRESS_EVERY_MS,
  type ProgressSink,
  type ProgressTimers,
  withWaitProgress,
} from './wait-progress.ts';

class FakeTimers implements ProgressTimers {
  at = 0;
  private readonly pending: { due: number; every?: number; run: () => void; live: boolean }[] = [];
  now = (): number => this.at;
  every = (ms: number, run: () => void): (() => void) => this.add(ms, run, ms);
  after = (ms: number, run: () => void): (() => void) => this.add(ms, run);
  private add(ms: number, run: () => void, every?: number): () => void {
    const timer = { due: this.at + ms, run, live: true, ...(every === undefined ? {} : { every }) };
    this.pending.push(timer);
    return () => {
      timer.live = false;
    };
  }
  advance(ms: number): void {
    const end = this.at + ms;
    for (;;) {
      const next = this.pending
        .filter((timer) => timer.live && timer.due <= end)
        .sort((a, b) => a.due - b.due)[0];
      if (next === undefined) {
        break;
      }
      this.at = next.due;
      if (next.every === undefined) {
        next.live = false;
      } else {
        next.due += next.every;
      }
      next.run();
    }
    this.at = end;
  }
}

function sink(): ProgressSink & { heads: number[]; writes: string[] } {
  const written = {
    headersSent: false,
    destroyed: false,
    heads: [] as number[],
    writes: [] as string[],
    writeHead(status: number) {
      written.heads.push(status);
      written.headersSent = true;
    },
    write(chunk: string) {
      written.writes.push(chunk);
    },
  };
  return written;
}

function deferred(): { promise: Promise<string>; resolve: (value: string) => void } {
  let resolve: (value: string) => void = () => undefined;
  const promise = new Promise<string>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** A wait for `node` under withWaitProgress, on fake timers, told to a fake sink. */
function waitFor(node: string, headers: Record<string, string> = {}) {
  const timers = new FakeTimers();
  const out = sink();
  const wait = deferred();
  const result = withWaitProgress(wait.promise, {
    sink: out,
    comment: (ms) => `: waking ${node} (${Math.round(ms / 1000)} s)\n\n`,
    headers: () => headers,
    timers,
  });
  return { timers, out, wait, result };
}

describe('withWaitProgress', () => {
  it('sends nothing when the wait ends within 2 s', async () => {
    const { timers, out, wait, result } = waitFor('box');
    timers.advance(PROGRESS_AFTER_MS - 1);
    wait.resolve('target');
    expect(await result).toBe('target');
    timers.advance(60_000);
    expect(out.heads).toEqual([]);
    expect(out.writes).toEqual([]);
  });

  it('sends the headers at 2 s and a comment at most 5 s apart until the engine answers', async () => {
    const { timers, out, wait, result } = waitFor('gpu-a', { 'x-svc-node': 'gpu-a' });
    timers.advance(20_000);
    wait.resolve('target');
    await result;
    timers.advance(20_000);
    expect(out.heads).toEqual([200]);
    expect(out.writes[0]).toBe(': waking gpu-a (2 s)\n\n');
    const seconds = out.writes.map((line) => Number(/\((\d+) s\)/.exec(line)?.[1]));
    expect(seconds).toEqual([2, 6, 10, 14, 18]);
    expect(PROGRESS_EVERY_MS).toBeLessThanOrEqual(5_000);
  });

  it('stops writing once the caller has gone', async () => {
    const { timers, out, wait, result } = waitFor('box');
    timers.advance(PROGRESS_AFTER_MS);
    (out as { destroyed: boolean }).destroyed = true;
    timers.advance(20_000);
    wait.resolve('target');
    await result;
    expect(out.writes).toHaveLength(1);
  });
});
