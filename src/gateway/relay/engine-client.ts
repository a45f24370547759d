/**
 * The gateway's HTTP/1.1 client to engines: kept connections per engine origin, one request at a
 * time on each, the request written in one go and the reply read by reply-parser.ts. It replaces
 * undici on the relay path because a same-run comparison of prototype relays (docs/benchmarks.md,
 * "Engine client") showed undici's per-request work costing more than all of the gateway's own;
 * what the relay needs of a client is small: send, read the head, pass body bytes on, pause for
 * a slow reader, time out, abort.
 *
 * Connections are kept per origin (engine-pool.ts); a kept connection that the engine closed
 * anyway shows up as EngineClosedError before any reply byte, which the relay answers by sending
 * once more (upstream-reply.ts).
 */

import { type ConnectionUser, type EngineConnection, OriginPool } from './engine-pool.ts';
import { type ReplyEvents, ReplyParser } from './reply-parser.ts';
import { requestHead } from './request-head.ts';
import { type EngineBody, isStreamed, pumpBody } from './streamed-body.ts';

/** One request to an engine; the timeouts are in ms, 0 for none. */
export interface EngineRequest {
  readonly origin: string;
  readonly path: string;
  readonly method: string;
  /** Flat `[name, value, …]`; Host and Content-Length are the client's own. */
  readonly headers: readonly string[];
  /** A streamed one (streamed-body.ts) goes on a new connection, its head timed from its end. */
  readonly body: EngineBody;
  /** From sending the request until the reply's head has arrived. */
  readonly headersTimeout: number;
  /** The longest gap between two pieces of the reply's body. */
  readonly bodyTimeout: number;
  /** Send on a new connection, not a kept one (a resend after a kept one failed). */
  readonly freshConnection?: boolean;
}

/** What the client tells a request's owner, in this order; onComplete or onError ends it. */
export interface EngineHandler {
  onConnect(abort: (reason?: Error) => void): void;
  /** Answer false to pause the body until `resume` is called. */
  onHeaders(status: number, rawHeaders: string[], resume: () => void): boolean;
  /** Answer false to pause the body until `resume` is called. */
  onData(chunk: Buffer): boolean;
  onComplete(): void;
  onError(error: Error): void;
}

export interface EngineDispatcher {
  dispatch(request: EngineRequest, handler: EngineHandler): void;
}

/** The connection closed before the reply ended (before it began, when `replyStarted` is false). */
export class EngineClosedError extends Error {
  readonly code = 'ECONNRESET';
  constructor(readonly replyStarted: boolean) {
    super(
      replyStarted
        ? 'the connection closed before the reply ended'
        : 'the connection closed before any reply',
    );
    this.name = 'EngineClosedError';
  }
}

/** A reply that did not arrive in time: its head (`headers`) or the next piece of its body. */
export class EngineTimeoutError extends Error {
  readonly code = 'ERR_ENGINE_TIMEOUT';
  constructor(readonly phase: 'headers' | 'body') {
    super(phase === 'headers' ? 'no reply head in time' : 'the reply body stalled');
    this.name = 'EngineTimeoutError';
  }
}

/** The request's owner gave it up. */
export class EngineRequestAbortedError extends Error {
  readonly code = 'ERR_ENGINE_ABORTED';
  constructor() {
    super('the request was aborted');
    this.name = 'EngineRequestAbortedError';
  }
}

/** One request and its reply on one connection. */
class Exchange implements ReplyEvents, ConnectionUser {
  private readonly parser = new ReplyParser(this);
  private timer: NodeJS.Timeout | undefined;
  private finished = false;
  private keepAlive = false;
  private gotHead = false;
  /**
   * The owner asked for a pause. One socket read can hold many pieces of the body: those after
   * the pause wait here (and the end behind them) until `resume`, as undici's parser stopped.
   */
  private paused = false;
  private held: Buffer[] = [];
  private endHeld = false;
  /** Stops a streamed body still being sent (streamed-body.ts). */
  private stopPump: (() => void) | undefined;
  readonly abort = (reason?: Error): void => this.fail(reason ?? new EngineRequestAbortedError());

  constructor(
    private readonly conn: EngineConnection,
    private readonly request: EngineRequest,
    private readonly handler: EngineHandler,
  ) {}

  send(head: string): void {
    const { socket } = this.conn;
    const { body } = this.request;
    this.conn.exchange = this;
    this.handler.onConnect(this.abort);
    if (this.finished) {
      return;
    }
    if (isStreamed(body)) {
      socket.write(head, 'latin1');
      // The engine answers once the body is in: its head is timed from the body's end.
      this.stopPump = pumpBody(socket, body, {
        sent: () => {
          this.stopPump = undefined;
          this.startHeadTimer();
        },
        broken: (error) => {
          this.stopPump = undefined;
          this.fail(error);
        },
      });
      return;
    }
    this.startHeadTimer();
    socket.cork();
    socket.write(head, 'latin1');
    if (body.length > 0) {
      socket.write(body);
    }
    socket.uncork();
  }

  private startHeadTimer(): void {
    if (this.request.headersTimeout > 0 && !this.finished && !this.gotHead) {
      this.timer = setTimeout(this.timedOut, this.request.headersTimeout);
    }
  }

  /** A streamed body still being sent: stopped, and its connection not kept (it is mid-body). */
  private endPump(): void {
    if (this.stopPump !== undefined) {
      this.stopPump();
      this.stopPump = undefined;
      this.keepAlive = false;
    }
  }

  read(data: Buffer): void {
    try {
      this.parser.feed(data);
    } catch (error) {
      if (this.finished || this.endHeld) {
        // Bytes after the reply: it was answered, the connection is not reused.
        this.keepAlive = false;
        this.conn.socket.destroy();
      } else {
        // A MalformedReplyError: the reply cannot be read, nor the connection trusted.
        this.fail(error as Error);
      }
    }
  }

  head(status: number, rawHeaders: string[], keepAlive: boolean): void {
    this.gotHead = true;
    this.keepAlive = keepAlive;
    const { headersTimeout, bodyTimeout } = this.request;
    if (this.timer !== undefined && bodyTimeout === headersTimeout) {
      // A non-streamed reply's two limits are the same: one timer, started again, not a second.
      this.timer.refresh();
    } else {
      clearTimeout(this.timer);
      this.timer = bodyTimeout > 0 ? setTimeout(this.timedOut, bodyTimeout) : undefined;
    }
    if (!this.handler.onHeaders(status, rawHeaders, this.resume)) {
      this.pause();
    }
  }

  body(chunk: Buffer): void {
    this.timer?.refresh();
    if (this.paused) {
      this.held.push(chunk);
    } else if (!this.handler.onData(chunk)) {
      this.pause();
    }
  }

  end(): void {
    if (this.paused) {
      this.endHeld = true;
    } else {
      this.complete();
    }
  }

  /** The connection ended or closed while this exchange was on it. */
  closed(): void {
    if (!this.finished && !this.parser.close()) {
      this.fail(new EngineClosedError(this.parser.started));
    }
  }

  fail(error: Error): void {
    if (this.finished) {
      return;
    }
    this.finished = true;
    clearTimeout(this.timer);
    this.held = [];
    this.endPump();
    this.conn.done(false);
    this.handler.onError(error);
  }

  private pause(): void {
    this.paused = true;
    this.conn.socket.pause();
  }

  private readonly resume = (): void => {
    if (this.finished || !this.paused) {
      return;
    }
    this.paused = false;
    // The wait was the owner's, not the engine's: the body's time limit starts again.
    this.timer?.refresh();
    while (this.held.length > 0) {
      if (!this.handler.onData(this.held.shift() as Buffer)) {
        this.paused = true;
        return;
      }
    }
    if (this.endHeld) {
      this.complete();
    } else {
      this.conn.socket.resume();
    }
  };

  private complete(): void {
    this.finished = true;
    clearTimeout(this.timer);
    this.endPump();
    this.conn.done(this.keepAlive);
    this.handler.onComplete();
  }

  private readonly timedOut = (): void => {
    if (this.paused) {
      // A reader that holds the reply back is not an engine that stalled.
      this.timer?.refresh();
      return;
    }
    this.fail(new EngineTimeoutError(this.gotHead ? 'body' : 'headers'));
  };
}

/** Kept connections per engine origin, for the life of the process. */
export class EngineClient implements EngineDispatcher {
  private readonly pools = new Map<string, OriginPool>();

  dispatch(request: EngineRequest, handler: EngineHandler): void {
    let pool = this.pools.get(request.origin);
    if (pool === undefined) {
      pool = new OriginPool(request.origin);
      this.pools.set(request.origin, pool);
    }
    const head = requestHead(request, pool.hostHeader);
    if (head instanceof Error) {
      handler.onError(head);
      return;
    }
    // A streamed body cannot be sent again, so never on a kept connection the engine may have closed.
    const fresh = request.freshConnection === true || isStreamed(request.body);
    const conn = fresh ? pool.connect() : pool.acquire();
    new Exchange(conn, request, handler).send(head);
  }

  /** Idle connections kept for an origin (what the tests read). */
  idleCount(origin: string): number {
    return this.pools.get(origin)?.idle.length ?? 0;
  }
}
