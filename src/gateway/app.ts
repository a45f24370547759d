/**
 * The gateway's HTTP surface (spec §4.2) on node:http directly: the hot path is one auth check,
 * one JSON parse for the model, a routing decision from cached node state, and a streaming
 * proxy, with nothing else in between (the latency target of issue 7 leaves no room for a
 * framework's per-request work). Every endpoint is behind the gateway token.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { bearerChecker } from '../core/auth/bearer.ts';
import { logRequest } from '../core/http/access-log.ts';
import { jsonErrorPosition } from '../core/http/json-error.ts';
import type { Logger } from '../core/logger.ts';
import { errorBody, GatewayError } from './gateway-error.ts';
import type { FleetView, NodeSnapshot } from './node-snapshots.ts';
import { proxy } from './proxy.ts';
import type { Waker } from './wake.ts';

const SERVED = ['/v1/models', '/v1/chat/completions', '/v1/completions', '/v1/fleet', '/health'];
const COMPLETIONS = new Set(['/v1/chat/completions', '/v1/completions']);
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface GatewayDeps {
  readonly view: FleetView;
  readonly waker: Waker;
  readonly logger: Logger;
  readonly token?: string;
}

function sendJson(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new GatewayError(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? (chunks[0] ?? Buffer.alloc(0)) : Buffer.concat(chunks);
}

function modelOf(body: Buffer): { model: string; streaming: boolean } {
  let parsed: unknown;
  try {
    parsed = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new GatewayError(400, `the request is not a JSON body${jsonErrorPosition(error)}`);
  }
  const fields =
    typeof parsed === 'object' && parsed !== null
      ? (parsed as { model?: unknown; stream?: unknown })
      : {};
  if (typeof fields.model !== 'string' || fields.model === '') {
    throw new GatewayError(
      400,
      'the request names no model: completion requests need a "model" field',
    );
  }
  return { model: fields.model, streaming: fields.stream === true };
}

async function complete(
  deps: GatewayDeps,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = await readBody(request);
  const { model, streaming } = modelOf(body);
  // From the snapshots already held; a wait only when they cannot decide (node-states.ts).
  const snapshots = await deps.view.forModel(model);
  const decision = deps.view.decide(model, snapshots);
  let target;
  switch (decision.kind) {
    case 'serve':
      target = decision.target;
      break;
    case 'refuse':
      throw new GatewayError(decision.status, decision.message);
    case 'wait':
      target = await deps.waker.waitFor(decision.node, model);
      break;
    case 'wake':
      target = await deps.waker.wake(model, snapshots);
      break;
  }
  await proxy(target, { incoming: request, outgoing: response, body, streaming });
}

async function models(deps: GatewayDeps): Promise<string> {
  const snapshots = await deps.view.all();
  return deps.view.reply('models', snapshots, (current) => modelList(deps, current));
}

async function modelList(deps: GatewayDeps, snapshots: readonly NodeSnapshot[]): Promise<string> {
  const names: string[] = [];
  for (const snapshot of snapshots) {
    if (snapshot.ok && snapshot.status.state === 'running') {
      const name = snapshot.status.servedName ?? snapshot.status.model;
      if (name !== undefined) {
        names.push(name);
      }
    }
  }
  const wakeable = await Promise.all(
    snapshots.map((snapshot) =>
      snapshot.ok && snapshot.status.state !== 'running'
        ? deps.view.wakeableModel(snapshot.node)
        : Promise.resolve(undefined),
    ),
  );
  names.push(...wakeable.filter((name): name is string => name !== undefined));
  const data = [...new Set(names)].map((id) => ({ id, object: 'model', owned_by: 'svc' }));
  return JSON.stringify({ object: 'list', data });
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

export function buildGateway(deps: GatewayDeps): Server {
  const authorized = bearerChecker(deps.token);
  return createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
    const started = performance.now();
    // Bytes on the wire for this reply (one request at a time per connection, no pipelining).
    const written = request.socket.bytesWritten;
    response.once('finish', () => {
      logRequest(deps.logger, {
        method: request.method ?? '',
        path: request.url ?? '',
        status: response.statusCode,
        durationMs: performance.now() - started,
        bytes: request.socket.bytesWritten - written,
        remote: request.socket.remoteAddress ?? '',
      });
    });
    const handle = async (): Promise<void> => {
      if (!authorized(request.headers.authorization)) {
        throw new GatewayError(401, 'missing or invalid bearer token');
      }
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      if (request.method === 'POST' && COMPLETIONS.has(path)) {
        await complete(deps, request, response);
        return;
      }
      if (request.method === 'GET' && path === '/health') {
        sendJson(response, 200, '{"ok":true}');
        return;
      }
      if (request.method === 'GET' && path === '/v1/models') {
        sendJson(response, 200, await models(deps));
        return;
      }
      if (request.method === 'GET' && path === '/v1/fleet') {
        sendJson(response, 200, await topology(deps));
        return;
      }
      throw new GatewayError(
        404,
        `the gateway serves ${SERVED.join(', ')}, not ${request.method ?? ''} ${path}`,
      );
    };
    handle().catch((error: unknown) => {
      const status = error instanceof GatewayError ? error.status : 500;
      const message =
        error instanceof GatewayError ? error.message : 'internal error; see the gateway log';
      if (!(error instanceof GatewayError)) {
        deps.logger.error('request failed inside the gateway', {
          reason: (error as Error).message,
        });
      }
      if (response.headersSent) {
        response.destroy();
        return;
      }
      request.resume();
      sendJson(response, status, errorBody(message));
    });
  });
}
