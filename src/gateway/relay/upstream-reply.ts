/**
 * The engine's reply, relayed to the caller as the engine client (engine-client.ts) reads it:
 * raw header arrays in and out, each body chunk written the moment it arrives, one object per
 * request and no stream, iterator or promise per chunk. A slow reader pauses the engine instead
 * of growing a buffer.
 *
 * A request whose connection dies before any reply byte arrived is sent once more: llama-server
 * closes a kept connection after a streamed reply without saying so, and reusing connections
 * (instead of opening one per stream) is worth one resend, as nginx's `proxy_next_upstream` does.
 */
import type { ServerResponse } from 'node:http';

import { formatDurationText } from '../../core/duration.ts';
import { errorBody, GatewayError, sseError } from '../../core/http/gateway-error.ts';
import {
  EngineClosedError,
  type EngineDispatcher,
  type EngineHandler,
  type EngineRequest,
  EngineRequestAbortedError,
  EngineTimeoutError,
} from './engine-client.ts';
import { engineErrorEvent } from './engine-error-event.ts';
import { isEventStream, replyHeaderList, writeReplyHead } from './engine-reply-headers.ts';
import { isStreamed } from './streamed-body.ts';
import { WholeEvents } from './whole-events.ts';

/** Errors that mean the connection closed under a request the engine never answered. */
const RESENDABLE = new Set(['ECONNRESET', 'EPIPE']);

/** Whether a failure before any reply byte may be sent again: a connection closed under it. */
export function resendable(error: unknown, replyStarted: boolean, resent: boolean): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // A connection that closed after part of a reply head (or a 1xx) arrived was not merely stale.
  const partly = error instanceof EngineClosedError && error.replyStarted;
  return !replyStarted && !resent && !partly && typeof code === 'string' && RESENDABLE.has(code);
}

/** What the relay tells the request's metrics (gateway-metrics.ts RequestFacts). */
export interface RelayFacts {
  /** performance.now() when the engine's reply headers arrived. */
  repliedAt?: number;
  /** The engine failed to answer, timed out or broke off mid-reply. */
  upstreamError?: boolean;
  /** The gateway ended the relay itself (relay-cuts.ts): the access line's `outcome=stopped`. */
  stopped?: boolean;
}

/** What the relay needs to know about its request. */
export interface RelayTarget {
  readonly node: string;
  readonly replyTimeoutMs: number;
  /** Headers the gateway adds, as a flat `[name, value, …]` list. */
  readonly extraHeaders: readonly string[];
  readonly facts: RelayFacts;
  /** Hears each chunk of a reply passed on to the caller, as it is (docs/design.md D29 usage). */
  readonly tap?: ReplyTap;
  /** Words a failure before the reply began; absent, as an engine's (an upstream node's: D30). */
  readonly refuse?: RelayRefusal;
}

/** A failure before the reply began, as the caller is told it. */
export type RelayRefusal = (error: Error) => GatewayError;

/** A reader of the reply's bytes beside the caller; it must not keep or change what it hears. */
export interface ReplyTap {
  data(chunk: Buffer): void;
}

const kRelay = Symbol('upstream relay');
type WithRelay = ServerResponse & { [kRelay]?: UpstreamReply | undefined };

/** Shared by every request (no closure each): `this` is the caller's response. */
function onCallerClose(this: WithRelay): void {
  this[kRelay]?.callerClosed();
}
function onCallerDrain(this: WithRelay): void {
  this[kRelay]?.resumeUpstream();
}

/** Settles once the response's bytes are handed to the socket, or it closed. */
export function flushed(outgoing: ServerResponse): Promise<void> {
  if (outgoing.writableFinished || outgoing.destroyed) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    outgoing.once('finish', resolve);
    outgoing.once('close', resolve);
  });
}

/** One request's relay; `done` settles when the reply is over or failed before it began. */
export class UpstreamReply implements EngineHandler {
  private abortUpstream: ((reason?: Error) => void) | undefined;
  private resume: (() => void) | undefined;
  private started = false;
  private callerGone = false;
  private resent = false;
  private finished = false;
  /** The caller's reply is server-sent events (wake progress, or the engine's own headers). */
  private eventStream = false;
  /** The engine's own event stream, passed on in whole events (whole-events.ts). */
  private events: WholeEvents | undefined;
  /** Why the gateway ended this relay itself, once it did (cut). */
  private cutBy: GatewayError | undefined;
  /** Set while an engine error after wake progress is collected for the SSE error event. */
  private errorText: string | undefined;
  private errorStatus = 0;
  private settle!: (error?: GatewayError) => void;
  readonly done: Promise<GatewayError | undefined>;

  constructor(
    private readonly outgoing: ServerResponse,
    private readonly target: RelayTarget,
    private readonly dispatcher: EngineDispatcher,
    private readonly options: EngineRequest,
  ) {
    this.done = new Promise((resolve) => {
      this.settle = resolve;
    });
    (outgoing as WithRelay)[kRelay] = this;
    // `on`, not `once` (a wrapper each time): finish() takes it off, and a reply closes once.
    outgoing.on('close', onCallerClose);
  }

  /** Sends the request (again, for the one resend) with this relay as its handler. */
  start(): Promise<GatewayError | undefined> {
    this.send();
    return this.done;
  }

  private send(): void {
    // A resend goes on a new connection: another kept one may have closed just the same (after
    // a stream, llama-server closes every connection it kept).
    this.dispatcher.dispatch(
      this.resent ? { ...this.options, freshConnection: true } : this.options,
      this,
    );
  }

  callerClosed(): void {
    if (!this.outgoing.writableFinished) {
      this.callerGone = true;
      this.abortUpstream?.(new EngineRequestAbortedError());
    }
  }

  resumeUpstream(): void {
    this.resume?.();
  }

  /**
   * The gateway ends this relay itself (relay-cuts.ts, docs/design.md D33): the engine request is
   * aborted; a stream gets one SSE error event saying why, then closes; any other reply already
   * begun simply closes (its headers are gone); one not begun is refused with `reason`.
   */
  cut(reason: GatewayError): Promise<void> {
    const { outgoing } = this;
    if (this.finished) {
      return Promise.resolve();
    }
    this.cutBy = reason;
    this.target.facts.stopped = true;
    this.abortUpstream?.(new EngineRequestAbortedError());
    if (!outgoing.headersSent) {
      // Refused like any failure before the reply began (the proxy throws it).
      this.finish(reason);
      return Promise.resolve();
    }
    if ((this.eventStream || !this.started) && !outgoing.writableEnded && !outgoing.destroyed) {
      outgoing.end(sseError(errorBody(reason)));
    } else {
      outgoing.destroy();
    }
    this.finish();
    return flushed(outgoing);
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortUpstream = abort;
    if (this.callerGone || this.cutBy !== undefined) {
      abort(new EngineRequestAbortedError());
    }
  }

  onHeaders(statusCode: number, rawHeaders: string[], resume: () => void): boolean {
    this.started = true;
    this.target.facts.repliedAt = performance.now();
    this.resume = resume;
    const { outgoing } = this;
    this.eventStream = outgoing.headersSent || isEventStream(rawHeaders);
    this.events = this.eventStream ? new WholeEvents() : undefined;
    if (this.cutBy !== undefined) {
      return false;
    }
    if (outgoing.headersSent) {
      // Wake progress already sent 200 text/event-stream: an engine error becomes one SSE event.
      if (statusCode >= 400) {
        this.errorText = '';
        this.errorStatus = statusCode;
      }
      return true;
    }
    writeReplyHead(outgoing, statusCode, replyHeaderList(rawHeaders, this.target.extraHeaders));
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.errorText !== undefined) {
      this.errorText += chunk.toString('utf8');
      return true;
    }
    const { outgoing } = this;
    if (outgoing.destroyed || this.cutBy !== undefined) {
      return true;
    }
    this.target.tap?.data(chunk);
    const whole = this.events === undefined ? chunk : this.events.take(chunk);
    if (whole === undefined || outgoing.write(whole)) {
      return true;
    }
    // A slow reader holds the engine back rather than growing a buffer here.
    outgoing.once('drain', onCallerDrain);
    return false;
  }

  onComplete(): void {
    const { outgoing } = this;
    if (this.cutBy !== undefined) {
      return;
    }
    if (this.errorText !== undefined) {
      outgoing.end(engineErrorEvent(this.errorStatus, this.errorText, this.target.node));
    } else {
      outgoing.end(this.events?.rest());
    }
    this.finish();
  }

  onError(error: Error): void {
    if (this.cutBy !== undefined) {
      // cut() answered the caller and settled.
      return;
    }
    if (this.callerGone) {
      this.outgoing.destroy();
      this.finish();
      return;
    }
    // A streamed body (streamed-body.ts) is gone once sent: its failure is answered, not resent.
    if (!isStreamed(this.options.body) && resendable(error, this.started, this.resent)) {
      this.resent = true;
      this.abortUpstream = undefined;
      this.send();
      return;
    }
    this.target.facts.upstreamError = true;
    if (this.started) {
      // The engine broke off mid-reply: end what was sent.
      this.outgoing.destroy(error);
      this.finish();
      return;
    }
    this.finish(this.refusal(error));
  }

  private refusal(error: Error): GatewayError {
    if (this.target.refuse !== undefined) {
      return this.target.refuse(error);
    }
    if (error instanceof EngineTimeoutError && error.phase === 'headers') {
      return new GatewayError(
        504,
        `the engine on ${this.target.node} did not answer within ${formatDurationText(this.target.replyTimeoutMs)} (--reply-timeout)`,
        { code: 'reply_timeout' },
      );
    }
    return new GatewayError(
      502,
      `the engine on ${this.target.node} failed to answer: ${error.message}`,
    );
  }

  private finish(refusal?: GatewayError): void {
    this.finished = true;
    const outgoing = this.outgoing as WithRelay;
    outgoing.off('close', onCallerClose);
    outgoing.off('drain', onCallerDrain);
    outgoing[kRelay] = undefined;
    this.settle(refusal);
  }
}
