/**
 * An upstream node as its relays need it (docs/design.md D30): where it is reached, read as an
 * engine's address is, and the request's body as the node gets it (the `model` renamed only where
 * the node maps the name, every other body byte for byte).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { rewriteBody } from '../bodies/body-rewrite.ts';
import type { RelayEngine } from '../relay/proxy.ts';
import type { RelayCuts } from '../relay/relay-cuts.ts';
import type { RelayFacts, ReplyTap } from '../relay/upstream-reply.ts';

/** An upstream node as the relay needs it: its base URL, key, model map and reply bound. */
export interface UpstreamTarget {
  readonly name: string;
  readonly url: string;
  readonly apiKey?: string;
  readonly models: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

export interface UpstreamRelayRequest {
  readonly incoming: IncomingMessage;
  readonly outgoing: ServerResponse;
  readonly body: Buffer;
  /** The served name the caller asked for. */
  readonly model: string;
  /** Headers the gateway adds to the reply, flat `[name, value, …]`. */
  readonly extraHeaders: readonly string[];
  /** When the reply's headers arrived, whether it failed, whether the gateway cut it. */
  readonly facts?: RelayFacts;
  /** Hears each chunk passed on to the caller (docs/design.md D29 usage). */
  readonly tap?: ReplyTap;
  /** Where the gateway finds the relay to end it itself (relay-cuts.ts). */
  readonly cuts?: RelayCuts;
}

/** The body as the upstream gets it: renamed only where the node maps the name (D30). */
export function upstreamBody(target: UpstreamTarget, model: string, body: Buffer): Buffer {
  const id = Object.hasOwn(target.models, model) ? target.models[model] : undefined;
  return id === undefined || id === model ? body : rewriteBody(body, { model: id });
}

/** Each node's URL read once, not per request: a fleet reload brings new node objects. */
const engines = new WeakMap<UpstreamTarget, RelayEngine>();

/**
 * The node as an engine: the URL's origin, its path (less a trailing slash) in place of the
 * request's `/v1` (relay/proxy.ts upstreamPath), and the node's key.
 */
export function asEngine(target: UpstreamTarget): RelayEngine {
  let engine = engines.get(target);
  if (engine === undefined) {
    const url = new URL(target.url);
    engine = {
      node: { name: target.name },
      origin: url.origin,
      // `http://host/v1/` and `http://host/v1` are one prefix; `http://host/` is none.
      pathPrefix: url.pathname.replace(/\/+$/, ''),
      ...(target.apiKey === undefined ? {} : { key: target.apiKey }),
    };
    engines.set(target, engine);
  }
  return engine;
}
