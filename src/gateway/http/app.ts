/**
 * The gateway's HTTP surface (spec §4.2) on node:http directly: the hot path is one auth check,
 * one JSON parse for the model, a routing decision from cached node state, and a streaming
 * proxy, with nothing else in between (a framework's per-request work does not fit the latency
 * budget). Preflights answer without the token (docs/design.md D22), and so do the fleet page's
 * files, which hold no data; everything else is behind it, and starting or stopping a node, or
 * reading its engine log, needs operator rights (docs/design.md D28, caller-rights.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import type { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import { logRequest, requestLogged } from '../../core/http/access-log.ts';
import { corsHeaders, type CorsPolicy, preflightHeaders } from '../../core/http/cors.ts';
import { errorBody, errorHeaders, GatewayError, sseError } from '../../core/http/gateway-error.ts';
import type { Logger } from '../../core/logger.ts';
import { wantsOpenMetrics } from '../../core/metrics/exposition.ts';
import {
  controlNode,
  fleetStats,
  nodeActionOf,
  type NodeControlClient,
} from '../control/fleet-control.ts';
import { nodeLogs, type NodeLogsClient, nodeLogsOf } from '../control/node-logs.ts';
import { type GatewayMetrics, routeOf } from '../metrics/gateway-metrics.ts';
import type { PageAsset } from '../page/fleet-page.ts';
import { complete, type CompleteDeps, type RequestContext } from '../requests/complete.ts';
import type { SchedulingReadout } from '../scheduling-readout.ts';
import { CallerUsage, countRequest } from '../usage/caller-usage.ts';
import { callerRead } from './caller-reads.ts';
import { type Caller, callerChecker, type CallerRights } from './caller-rights.ts';
import { isModelEndpoint, notServed } from './request-target.ts';
import { sendJson } from './send-json.ts';
import { type Target, targetOf } from './target.ts';

export interface GatewayDeps extends CompleteDeps {
  readonly view: FleetView;
  readonly logger: Logger;
  readonly token?: string;
  /**
   * The operator token (docs/design.md D28); absent lets the gateway token start and stop nodes.
   */
  readonly operatorToken?: string;
  /** The fleet file's gateway.cors origins; absent allows any (docs/design.md D22). */
  readonly cors?: CorsPolicy;
  /** When the gateway started (ms): the `created` of models nothing runs yet. */
  readonly startedAt: number;
  readonly metrics: GatewayMetrics;
  /** The fleet page's files by URL path (fleet-page.ts). */
  readonly page: ReadonlyMap<string, PageAsset>;
  /** Start, stop and stats for the page's node controls; a node's engine log. */
  readonly nodes: NodeControlClient & NodeLogsClient;
  /**
   * What /v1/fleet reports of the scheduler (docs/design.md D25, D26): in flight, queued, idle
   * stop.
   */
  readonly readout?: SchedulingReadout;
  /** docs/design.md D29: what each caller used; buildGateway makes one when absent. */
  readonly usage?: CallerUsage;
}

/** The access line's: the caller's address as it arrived, whether the gateway ended it itself. */
interface LoggedContext extends RequestContext {
  remote?: string;
  stopped?: boolean;
}

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
    routeOf(target.path, target.asset !== undefined),
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

/** Everything behind the token: model requests, then the gateway's own endpoints. */
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
  const { path, method } = target;
  if (isModelEndpoint(method, path)) {
    await complete(deps, request, response, context);
    return;
  }
  if (method === 'GET' && path === '/health') {
    sendJson(response, 200, '{"ok":true}');
    return;
  }
  const read = await callerRead(deps, target, caller, context);
  if (read !== undefined) {
    sendJson(response, 200, read);
    return;
  }
  await answerOwn(deps, request, response, target, caller.rights);
}

/** The gateway's own endpoints beyond the OpenAI ones: its metrics and the fleet page's data. */
async function answerOwn(
  deps: GatewayDeps,
  request: IncomingMessage,
  response: ServerResponse,
  { path, query, method }: Target,
  rights: CallerRights,
): Promise<void> {
  if (method === 'GET' && path === '/metrics') {
    const { contentType, body } = await deps.metrics.exposition(
      wantsOpenMetrics(request.headers.accept),
    );
    response.writeHead(200, { 'content-type': contentType });
    response.end(body);
    return;
  }
  if (method === 'GET' && path === '/v1/fleet/stats') {
    sendJson(response, 200, await fleetStats(deps.view, deps.nodes, deps.metrics.served));
    return;
  }
  if (method === 'GET' && path === '/v1/fleet/rights') {
    // What this token may do, so the fleet page shows node controls only to an operator.
    sendJson(response, 200, JSON.stringify({ operator: rights === 'operate' }));
    return;
  }
  if (method === 'GET' && path === '/v1/fleet/route') {
    // docs/design.md D33: the live decision, from the scheduler the requests go through; changes
    // nothing.
    const model = new URLSearchParams(query).get('model') ?? '';
    if (model === '') {
      throw new GatewayError(400, 'name the model to route: GET /v1/fleet/route?model=<name>');
    }
    sendJson(response, 200, JSON.stringify(await deps.scheduling.route(model)));
    return;
  }
  const logsOf = method === 'GET' ? nodeLogsOf(path) : undefined;
  if (logsOf !== undefined) {
    sendJson(response, 200, await nodeLogs(deps, { name: logsOf, rights, query }));
    return;
  }
  const action = method === 'POST' ? nodeActionOf(path) : undefined;
  if (action !== undefined) {
    request.resume();
    const force = new URLSearchParams(query).get('force');
    const { view, nodes, scheduling } = deps;
    const ask = { ...action, rights, force };
    sendJson(response, 200, await controlNode(view, nodes, scheduling, ask));
    return;
  }
  throw notServed(request.method, path);
}

export function buildGateway(gatewayDeps: GatewayDeps): Server {
  // docs/design.md D29: the Prometheus series only with callers, so a fleet without them is as
  // before.
  const { callers } = gatewayDeps.view.fleet;
  const registers = callers === undefined ? undefined : gatewayDeps.metrics.registries;
  const usage = gatewayDeps.usage ?? new CallerUsage(new Date(), registers);
  const deps: GatewayDeps = { ...gatewayDeps, usage };
  const callerOf = callerChecker({
    ...(deps.token === undefined ? {} : { token: deps.token }),
    ...(deps.operatorToken === undefined ? {} : { operatorToken: deps.operatorToken }),
    ...(callers === undefined ? {} : { callers }),
  });
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const context: LoggedContext = {
      startedAt: performance.now(),
      remote: request.socket.remoteAddress ?? '',
      // Bytes on the wire for this reply (one request at a time per connection, no pipelining).
      bytesBefore: request.socket.bytesWritten,
    };
    const target = targetOf(deps.page, request);
    response.once('close', () => {
      requestEnded(deps, request, response, context, target);
    });
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
