/**
 * The gateway's HTTP surface (spec §4.2) on node:http directly: the hot path is one auth check,
 * one JSON parse for the model, a routing decision from cached node state, and a streaming
 * proxy, with nothing else in between (a framework's per-request work does not fit the latency
 * budget). Preflights answer without the token (GUIDE D22); everything else is behind it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { bearerChecker } from '../core/auth/bearer.ts';
import { logRequest, requestLogged } from '../core/http/access-log.ts';
import type { Logger } from '../core/logger.ts';
import { complete, type CompleteDeps, type RequestContext } from './complete.ts';
import { corsHeaders, type CorsPolicy, preflightHeaders } from './cors.ts';
import { errorBody, errorHeaders, GatewayError } from './gateway-error.ts';
import { listModels, modelIdOf, modelReply, modelsReply } from './model-endpoints.ts';
import type { ModelEntry } from './models-list.ts';
import type { NodeSnapshot } from './node-snapshots.ts';
import { isModelEndpoint, notServed } from './request-target.ts';
import { sseError } from './wake-progress.ts';

export interface GatewayDeps extends CompleteDeps {
  readonly logger: Logger;
  readonly token?: string;
  /** The fleet file's gateway.cors origins; absent allows any (GUIDE D22). */
  readonly cors?: CorsPolicy;
  /** When the gateway started (ms): the `created` of models nothing runs yet. */
  readonly startedAt: number;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

/** The `/v1/models` entries for one set of kept snapshots, computed once per set. */
function entriesFor(
  deps: GatewayDeps,
  snapshots: readonly NodeSnapshot[],
): Promise<readonly ModelEntry[]> {
  return deps.view.reply('model-entries', snapshots, (current) =>
    listModels(current, (node) => deps.view.wakeableModel(node), {
      now: Date.now(),
      startedAt: deps.startedAt,
    }),
  );
}

/** `/v1/models/{id}`: one entry from the same kept snapshots as the list. */
async function modelEntry(deps: GatewayDeps, id: string): Promise<string> {
  return modelReply(await entriesFor(deps, await deps.view.all()), id);
}

/** The `/v1/models` body, serialised once per set of snapshots and reused while it holds. */
async function models(deps: GatewayDeps): Promise<string> {
  const snapshots = await deps.view.all();
  return deps.view.reply('models', snapshots, async (current) =>
    modelsReply(await entriesFor(deps, current)),
  );
}

async function topology(deps: GatewayDeps): Promise<string> {
  const snapshots = await deps.view.all();
  return deps.view.reply('fleet', snapshots, (current) => fleetReply(deps, current));
}

async function fleetReply(deps: GatewayDeps, snapshots: readonly NodeSnapshot[]): Promise<string> {
  const { fleet } = deps.view;
  const nodes = await Promise.all(
    snapshots.map(async (snapshot) => {
      const base = {
        name: snapshot.node.name,
        kind: snapshot.node.kind,
        ...(snapshot.node.tags ? { tags: snapshot.node.tags } : {}),
      };
      if (!snapshot.ok) {
        return { ...base, state: snapshot.outcome, detail: snapshot.detail };
      }
      const { status } = snapshot;
      const wakeable =
        status.state === 'running' ? undefined : await deps.view.wakeableModel(snapshot.node);
      return {
        ...base,
        state: status.state,
        ...(status.model === undefined ? {} : { model: status.model }),
        ...(status.servedName === undefined ? {} : { servedName: status.servedName }),
        ...(status.ready === undefined ? {} : { ready: status.ready }),
        ...(status.lastActiveAt === undefined ? {} : { lastActiveAt: status.lastActiveAt }),
        ...(wakeable === undefined ? {} : { wakeableModel: wakeable }),
      };
    }),
  );
  return JSON.stringify({
    // spec §4.2 rule 6: the file's settings ride along, each absent where the file declares none.
    ...(fleet.wake === undefined ? {} : { wake: fleet.wake === 'on' }),
    ...(fleet.prefer === undefined ? {} : { prefer: fleet.prefer }),
    ...(fleet.concurrency === undefined ? {} : { concurrency: fleet.concurrency }),
    nodes,
  });
}

/** Whether the caller is waiting for `100 Continue` before sending its body. */
function expectsContinue(request: IncomingMessage): boolean {
  return /100-continue/i.test(request.headers.expect ?? '');
}

function fail(
  deps: GatewayDeps,
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
  error: unknown,
): void {
  const refusal =
    error instanceof GatewayError
      ? error
      : new GatewayError(500, 'internal error; see the gateway log', { code: 'internal_error' });
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
  context: RequestContext,
): void {
  const aborted = !response.writableFinished;
  if (!requestLogged(deps.logger, response.statusCode, aborted)) {
    return;
  }
  logRequest(deps.logger, {
    method: request.method ?? '',
    path: request.url ?? '',
    status: response.statusCode,
    durationMs: performance.now() - (context.startedAt ?? 0),
    bytes: request.socket.bytesWritten - (context.bytesBefore ?? 0),
    remote: request.socket.remoteAddress ?? '',
    ...(context.model === undefined ? {} : { model: context.model }),
    ...(context.node === undefined ? {} : { node: context.node }),
    ...(aborted ? { outcome: 'aborted' as const } : {}),
  });
}

/** Everything behind the token: model requests, then the gateway's own endpoints. */
async function answer(
  deps: GatewayDeps,
  authorized: (header: string | undefined) => boolean,
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
): Promise<void> {
  if (!authorized(request.headers.authorization)) {
    throw new GatewayError(401, 'missing or invalid bearer token');
  }
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  // HEAD answers like GET; node:http leaves the body out of a HEAD reply.
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  if (isModelEndpoint(method, path)) {
    await complete(deps, request, response, context);
    return;
  }
  if (method === 'GET' && path === '/health') {
    sendJson(response, 200, '{"ok":true}');
    return;
  }
  if (method === 'GET' && path === '/v1/models') {
    sendJson(response, 200, await models(deps));
    return;
  }
  const id = method === 'GET' ? modelIdOf(path) : undefined;
  if (id !== undefined) {
    context.model = id;
    sendJson(response, 200, await modelEntry(deps, id));
    return;
  }
  if (method === 'GET' && path === '/v1/fleet') {
    sendJson(response, 200, await topology(deps));
    return;
  }
  throw notServed(request.method, path);
}

export function buildGateway(deps: GatewayDeps): Server {
  const authorized = bearerChecker(deps.token);
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const context: RequestContext = {
      startedAt: performance.now(),
      // Bytes on the wire for this reply (one request at a time per connection, no pipelining).
      bytesBefore: request.socket.bytesWritten,
    };
    response.once('close', () => {
      requestEnded(deps, request, response, context);
    });
    const origin = request.headers.origin;
    if (request.method === 'OPTIONS') {
      // GUIDE D22: a preflight carries no credentials, so it is answered without the token.
      response.writeHead(
        204,
        preflightHeaders(origin, request.headers['access-control-request-headers'], deps.cors),
      );
      response.end();
      return;
    }
    if (origin !== undefined) {
      for (const [name, value] of Object.entries(corsHeaders(origin, deps.cors))) {
        response.setHeader(name, value);
      }
    }
    answer(deps, authorized, request, response, context).catch((error: unknown) => {
      fail(deps, request, response, context, error);
    });
  };
  const server = createServer({ keepAliveTimeout: 65_000 }, handler);
  // With a listener here node:http no longer answers 100 Continue itself: a caller with a wrong
  // token gets its 401 before it uploads the body.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (authorized(request.headers.authorization)) {
      response.writeContinue();
    }
    handler(request, response);
  });
  return server;
}
