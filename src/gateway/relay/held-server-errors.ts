/**
 * An engine's 5xx held back from the caller (docs/design.md D30 `failed`): when the request may go
 * once to its model's fallback, a 5xx whose head arrived before any byte reached the caller is read
 * to its end and dropped, and the relay (upstream-reply.ts) hears a failure before its reply began,
 * so it refuses with a 502 naming the node and the caller gets the fallback's reply instead. Without
 * a fallback to send it to, the engine's own 5xx is relayed as it comes, as before.
 */
import type { EngineDispatcher, EngineHandler } from './engine-client.ts';

/** The engine answered a 5xx that was held back: the relay's 502 says which status. */
export class EngineServerError extends Error {
  constructor(readonly status: number) {
    super(`it answered HTTP ${String(status)}`);
    this.name = 'EngineServerError';
  }
}

/** One attempt's handler in front of the relay's: a 5xx never reaches it as a reply. */
class HeldServerErrors implements EngineHandler {
  private held: number | undefined;

  constructor(private readonly relay: EngineHandler) {}

  onConnect(abort: (reason?: Error) => void): void {
    this.relay.onConnect(abort);
  }

  onHeaders(status: number, rawHeaders: string[], resume: () => void): boolean {
    if (status >= 500) {
      this.held = status;
      return true;
    }
    return this.relay.onHeaders(status, rawHeaders, resume);
  }

  onData(chunk: Buffer): boolean {
    return this.held === undefined ? this.relay.onData(chunk) : true;
  }

  onComplete(): void {
    if (this.held === undefined) {
      this.relay.onComplete();
    } else {
      this.relay.onError(new EngineServerError(this.held));
    }
  }

  onError(error: Error): void {
    this.relay.onError(error);
  }
}

/** `dispatcher`, with each attempt's 5xx turned into a failure before the reply began. */
export function holdingServerErrors(dispatcher: EngineDispatcher): EngineDispatcher {
  return {
    dispatch: (request, handler) => {
      dispatcher.dispatch(request, new HeldServerErrors(handler));
    },
  };
}
