/**
 * A bound on a whole reply, streams included (docs/design.md D30: an upstream node's `timeout`):
 * the engine client's own limits are gaps (no head in time, a stalled body), which a reply that
 * keeps trickling never passes. Timed from the first send, so a resend (upstream-reply.ts) gets
 * only what is left; a slow reader does not stop it, as it does not stop undici's abort.
 */
import type { EngineDispatcher, EngineHandler } from './engine-client.ts';

/** The reply's bound passed, before or after its head. */
export class ReplyDeadlineError extends Error {
  readonly code = 'ERR_REPLY_DEADLINE';
  constructor() {
    super('the reply did not end within its bound');
    this.name = 'ReplyDeadlineError';
  }
}

/** One attempt's handler in front of the relay's: past the deadline, the request is aborted. */
class DeadlineHandler implements EngineHandler {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly relay: EngineHandler,
    private readonly leftMs: number,
  ) {}

  onConnect(abort: (reason?: Error) => void): void {
    this.timer = setTimeout(() => abort(new ReplyDeadlineError()), Math.max(0, this.leftMs));
    this.relay.onConnect(abort);
  }

  onHeaders(status: number, rawHeaders: string[], resume: () => void): boolean {
    return this.relay.onHeaders(status, rawHeaders, resume);
  }

  onData(chunk: Buffer): boolean {
    return this.relay.onData(chunk);
  }

  onComplete(): void {
    clearTimeout(this.timer);
    this.relay.onComplete();
  }

  onError(error: Error): void {
    clearTimeout(this.timer);
    this.relay.onError(error);
  }
}

/** `dispatcher` for one request, its reply bounded to `ms` from the first send, in all. */
export function withDeadline(dispatcher: EngineDispatcher, ms: number): EngineDispatcher {
  let deadline: number | undefined;
  return {
    dispatch: (request, handler) => {
      const now = performance.now();
      deadline ??= now + ms;
      dispatcher.dispatch(request, new DeadlineHandler(handler, deadline - now));
    },
  };
}
