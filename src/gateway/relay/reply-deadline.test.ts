/** An upstream node's `timeout` over the whole reply (docs/design.md D30), resends included. */
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { EngineDispatcher, EngineHandler } from './engine-client.ts';
import { ReplyDeadlineError, withDeadline } from './reply-deadline.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** An engine that connects each attempt and answers nothing until told; records its aborts. */
function silentEngine() {
  const attempts: { handler: EngineHandler; aborted?: Error | undefined }[] = [];
  const dispatcher: EngineDispatcher = {
    dispatch: (_request, handler) => {
      const attempt: { handler: EngineHandler; aborted?: Error | undefined } = { handler };
      attempts.push(attempt);
      handler.onConnect((reason) => {
        attempt.aborted = reason;
      });
    },
  };
  return { attempts, dispatcher };
}

const REQUEST = {
  origin: 'http://127.0.0.1:9',
  path: '/v1/chat/completions',
  method: 'POST',
  headers: [],
  body: Buffer.from('{}'),
  headersTimeout: 0,
  bodyTimeout: 0,
};

const relay: EngineHandler = {
  onConnect: () => undefined,
  onHeaders: () => true,
  onData: () => true,
  onComplete: () => undefined,
  onError: () => undefined,
};

describe('withDeadline', () => {
  it('aborts a reply still going at the bound, whether or not its head came', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const engine = silentEngine();
    withDeadline(engine.dispatcher, 1_000).dispatch(REQUEST, relay);
    engine.attempts[0]?.handler.onHeaders(200, [], () => undefined);
    vi.advanceTimersByTime(999);
    expect(engine.attempts[0]?.aborted).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(engine.attempts[0]?.aborted).toBeInstanceOf(ReplyDeadlineError);
  });

  it('gives a resend only what is left of the bound', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const engine = silentEngine();
    const bounded = withDeadline(engine.dispatcher, 1_000);
    bounded.dispatch(REQUEST, relay);
    vi.advanceTimersByTime(600);
    engine.attempts[0]?.handler.onError(new Error('closed'));
    bounded.dispatch(REQUEST, relay);
    vi.advanceTimersByTime(399);
    expect(engine.attempts[1]?.aborted).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(engine.attempts[1]?.aborted).toBeInstanceOf(ReplyDeadlineError);
    // The first attempt's timer was cleared with its failure: it is not aborted afterwards.
    expect(engine.attempts[0]?.aborted).toBeUndefined();
  });

  it('stops its timer once the reply is complete', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const engine = silentEngine();
    withDeadline(engine.dispatcher, 1_000).dispatch(REQUEST, relay);
    engine.attempts[0]?.handler.onComplete();
    vi.advanceTimersByTime(5_000);
    expect(engine.attempts[0]?.aborted).toBeUndefined();
  });
});
