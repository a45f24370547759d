/**
 * The gateway's HTTP surface (spec §4.2) on node:http directly: the hot path is one auth check,
 * one JSON parse for the model, a routing decision from cached node state, and a streaming
 * proxy, with nothing else in between (a framework's per-request work does not fit the latency
 * budget). Preflights answer without the token (docs/design.md D22), and so do the fleet page's
 * files, which hold no data; everything else is behind it, dispatched by the route table
 * (routes.ts), where starting or stopping a node, or reading its engine log, needs operator rights
 * (docs/design.md D28, caller-rights.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { logRequest, requestLogged } from '../../core/http/access-log.ts';
import { corsHeaders, preflightHeaders } from '../../core/http/cors.ts';
import { errorBody, errorHeaders, GatewayError, sseError } from '../../core/http/gateway-error.ts';
import { isModelEndpoint } from '../bodies/request-target.ts';
import { type Caller, callerChecker } from '../callers/caller-rights.ts';
import type { RequestContext } from '../requests/complete.ts';
import { countRequest, gatewayUsage } from '../usage/caller-usage.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { notServed, routeFor, routeLabel } from './routes.ts';
import { sendJson } from './send-json.ts';
import { type Target, targetOf } from './target.ts';

export type { GatewayDeps } from './gateway-deps.ts';

/** The access line's: the caller's address as it arrived, whether the gateway ended it itself. */
interface LoggedContext extends RequestContext {
  remote?: string;
  stopped?: boolean;
}

/** Each reply's request context, read by the one close listener of the server (no closure each). */
const kContext = Symbol('request context');
type Tracked = ServerResponse & {
  [kContext]?: { context: LoggedContext; target: Target } | undefined;
};

/** Whether the caller is waiting for `100 Continue` before sending its body. */
function expectsContinue(request: IncomingMessage): boolean {
  return /100-continue/i.test(request.headers.expect ?? '');
}

function fail(
  deps: GatewayDeps,
  request: IncomingMessage,
  response: ServerResponse,
  context: LoggedContext,
  error: unknown,
): void {
  const refusal =
    error instanceof GatewayError
      ? error
      : new GatewayError(500, 'internal error; see the gateway log', { code: 'internal_error' });
  if (refusal.code === 'upstream_error' || refusal.code === 'reply_timeout') {
    context.upstreamError = true;
  }
  if (refusal.code === 'shutting_down') {
    context.stopped = true;
  }
  if (!(error instanceof GatewayError)) {
    deps.logger.error('request failed inside the gateway', { reason: (error as Error).message });
  }
  if (response.headersSent) {
    if (context.progressSent === true && !response.writableEnded && !response.destroyed) {
      response.end(sseError(errorBody(refusal)));
    } else {
      response.destroy();
    }
    return;
  }
  const extra = errorHeaders(refusal);
  if (expectsContinue(request) && refusal.status === 401) {
    // The body was never asked for: close rather than read it (RFC 9110 §10.1.1).
    extra['connection'] = 'close';
  } else {
    request.resume();
  }
  sendJson(response, refusal.status, errorBody(refusal), extra);
}

/**
 * Where every request ends, answered or not ('close' rather than 'finish': a caller that left
 * gets its line too). The one place for per-request accounting; the access line's fields are
 * gathered only when its level is shown (spec §1.6: at the default level a 200 writes nothing).
 */
function requestEnded(
  deps: GatewayDeps,
  request: IncomingMessage,
  response: ServerResponse,
  context: LoggedContext,
  target: Target,
): void {
  const aborted = !response.writableFinished;
  const ended = performance.now();
  // The one metrics call per request (gateway-metrics.ts).
  deps.metrics.record(
    routeLabel(target.path, target.asset !== undefined),
    context,
    response.statusCode,
    context.startedAt ?? ended,
    ended,
    aborted,
  );
  if (deps.usage !== undefined && isModelEndpoint(target.method, target.path)) {
    countRequest(deps.usage, context, response.statusCode, ended, Date.now());
  }
  const stopped = context.stopped === true;
  if (!requestLogged(deps.logger, response.statusCode, aborted || stopped)) {
    return;
  }
  logRequest(deps.logger, {
    method: request.method ?? '',
    path: request.url ?? '',
    status: response.statusCode,
    durationMs: ended - (context.startedAt ?? 0),
    bytes: request.socket.bytesWritten - (context.bytesBefore ?? 0),
    remote: context.remote ?? request.socket.remoteAddress ?? '',
    ...(context.caller === undefined ? {} : { caller: context.caller.name }),
    ...(context.model === undefined ? {} : { model: context.model }),
    ...(context.node === undefined ? {} : { node: context.node }),
    ...(stopped ? { outcome: 'stopped' as const } : aborted ? { outcome: 'aborted' as const } : {}),
  });
}

/** Everything behind the token, by the route table (routes.ts). */
async function answer(
  deps: GatewayDeps,
  callerOf: (header: string | undefined) => Caller | undefined,
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
  target: Target,
): Promise<void> {
  const caller = callerOf(request.headers.authorization);
  if (caller === undefined) {
    throw new GatewayError(401, 'missing or invalid bearer token');
  }
  // docs/design.md D29: its name in the access line, usage and activity; its rights below.
  context.caller = caller;
  const found = routeFor(target.method, target.path);
  if (found === undefined) {
    throw notServed(request.method, target.path);
  }
  await found.route.handle({ deps, request, response, context, target, caller }, found.param);
}

export function buildGateway(gatewayDeps: GatewayDeps): Server {
  const { callers } = gatewayDeps.view.fleet;
  const usage = gatewayDeps.usage ?? gatewayUsage(callers, gatewayDeps.metrics.registries);
  const deps: GatewayDeps = { ...gatewayDeps, usage };
  const callerOf = callerChecker({
    ...(deps.token === undefined ? {} : { token: deps.token }),
    ...(deps.operatorToken === undefined ? {} : { operatorToken: deps.operatorToken }),
    ...(callers === undefined ? {} : { callers }),
  });
  function ended(this: Tracked): void {
    const tracked = this[kContext];
    if (tracked !== undefined) {
      this[kContext] = undefined;
      requestEnded(deps, this.req, this, tracked.context, tracked.target);
    }
  }
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const context: LoggedContext = {
      startedAt: performance.now(),
      remote: request.socket.remoteAddress ?? '',
      // Bytes on the wire for this reply (one request at a time per connection, no pipelining).
      bytesBefore: request.socket.bytesWritten,
    };
    const target = targetOf(deps.page, request);
    (response as Tracked)[kContext] = { context, target };
    response.on('close', ended);
    const origin = request.headers.origin;
    if (request.method === 'OPTIONS') {
      // docs/design.md D22: a preflight carries no credentials, so it is answered without the
      // token.
      response.writeHead(
        204,
        preflightHeaders(origin, request.headers['access-control-request-headers'], deps.cors),
      );
      response.end();
      return;
    }
    if (target.asset !== undefined) {
      // The page's files hold no data: no token, so a browser can load them before asking for it.
      response.writeHead(200, target.asset.headers);
      response.end(target.asset.body);
      return;
    }
    if (origin !== undefined) {
      for (const [name, value] of Object.entries(corsHeaders(origin, deps.cors))) {
        response.setHeader(name, value);
      }
    }
    answer(deps, callerOf, request, response, context, target).catch((error: unknown) => {
      fail(deps, request, response, context, error);
    });
  };
  const server = createServer({ keepAliveTimeout: 65_000 }, handler);
  // With a listener here node:http no longer answers 100 Continue itself: a caller with a wrong
  // token gets its 401 before it uploads the body.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (callerOf(request.headers.authorization) !== undefined) {
      response.writeContinue();
    }
    handler(request, response);
  });
  return server;
}
