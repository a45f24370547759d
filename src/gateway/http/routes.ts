/**
 * The gateway's routes (spec §4.2), one table like the daemon's (core/control-api/routes.ts):
 * method, path pattern, the rights a token needs, the metrics route label and the handler. The
 * dispatch in app.ts, the route label of /metrics and the 404 that names what is served all read
 * it, so a new endpoint is one entry here, and one in openapi/route-docs.ts for the published
 * description (docs/gateway-openapi.json; a test refuses a route without one). A route with a
 * parameter reads it from the path with its `param`; every POST /v1/<endpoint> not listed and not
 * the gateway's own is a model request too (request-target.ts), with the route label `other`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { GatewayError } from '../../core/http/gateway-error.ts';
import { wantsOpenMetrics } from '../../core/metrics/exposition.ts';
import { isModelEndpoint } from '../bodies/request-target.ts';
import type { Caller, CallerRights } from '../callers/caller-rights.ts';
import { checkModelAllowed, scopedFleet, scopedModels } from '../callers/caller-scope.ts';
import { controlNode, fleetStats, nodeActionOf } from '../control/fleet-control.ts';
import { nodeLogs, nodeLogsOf } from '../control/node-logs.ts';
import type { MetricsRoute } from '../metrics/gateway-metrics.ts';
import { modelIdOf } from '../models/model-endpoints.ts';
import { modelEntry, models, topology } from '../models/snapshot-replies.ts';
import { complete, type RequestContext } from '../requests/complete.ts';
import { usageEndpoint } from '../usage/usage-endpoints.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { sendJson } from './send-json.ts';
import type { Target } from './target.ts';

/** One request as a route's handler gets it, its token already checked. */
export interface RouteCall {
  readonly deps: GatewayDeps;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly context: RequestContext;
  readonly target: Target;
  readonly caller: Caller;
}

export interface GatewayRoute {
  readonly method: 'GET' | 'POST';
  /** The path; `{name}` stands for a part read by `param`. */
  readonly pattern: string;
  /**
   * What the token must allow (docs/design.md D28): `use` for any caller, `operate` for the
   * operator (the handler refuses any other with a 403 saying what the route does).
   */
  readonly rights: CallerRights;
  readonly label: MetricsRoute;
  /** Named in the 404's list of what the gateway serves (spec §4.2 rule 2). */
  readonly listed: boolean;
  /** The parameter in `path`, or undefined when the path is not this route's. */
  readonly param?: (path: string) => string | undefined;
  handle(call: RouteCall, param: string): Promise<void> | void;
}

const answerModel = ({ deps, request, response, context }: RouteCall): Promise<void> =>
  complete(deps, request, response, context);

/** The OpenAI paths with a route label of their own (spec §4.2 rules 2–5). */
export const MODEL_PATHS = [
  '/v1/chat/completions',
  '/v1/completions',
  '/v1/responses',
  '/v1/embeddings',
  '/v1/rerank',
  '/v1/messages',
  '/v1/messages/count_tokens',
] as const;

/** The node of a start or stop path (fleet-control.ts), for `action` only. */
function actionParam(action: 'start' | 'stop'): (path: string) => string | undefined {
  return (path) => {
    const asked = nodeActionOf(path);
    return asked?.action === action ? asked.name : undefined;
  };
}

function nodeAction(action: 'start' | 'stop'): GatewayRoute {
  return {
    method: 'POST',
    pattern: `/v1/fleet/nodes/{name}/${action}`,
    rights: 'operate',
    label: `/v1/fleet/nodes/{name}/${action}`,
    listed: true,
    param: actionParam(action),
    async handle({ deps, request, response, target, caller }, name) {
      request.resume();
      const force = new URLSearchParams(target.query).get('force');
      const { view, nodes, scheduling } = deps;
      const ask = { name, action, rights: caller.rights, force };
      sendJson(response, 200, await controlNode(view, nodes, scheduling, ask));
    },
  };
}

/** A GET any caller may make, labelled by its own pattern and named in the 404. */
function read(
  pattern: MetricsRoute,
  handle: GatewayRoute['handle'],
  param?: GatewayRoute['param'],
): GatewayRoute {
  return {
    method: 'GET',
    pattern,
    rights: 'use',
    label: pattern,
    listed: true,
    ...(param === undefined ? {} : { param }),
    handle,
  };
}

/** `/v1/fleet/usage` and `/v1/fleet/activity` (docs/design.md D29, usage-endpoints.ts). */
function usageRoute(pattern: string, rights: CallerRights): GatewayRoute {
  return {
    method: 'GET',
    pattern,
    rights,
    label: 'other',
    listed: false,
    handle({ deps, response, target, caller }) {
      const body = deps.usage === undefined ? undefined : usageEndpoint(deps.usage, target, caller);
      if (body === undefined) {
        throw notServed(target.method, target.path);
      }
      sendJson(response, 200, body);
    },
  };
}

export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  ...MODEL_PATHS.map((path): GatewayRoute => ({
    method: 'POST',
    pattern: path,
    rights: 'use',
    label: path,
    listed: false,
    handle: answerModel,
  })),
  read('/health', ({ response }) => sendJson(response, 200, '{"ok":true}')),
  read('/v1/models', async ({ deps, response, caller }) => {
    sendJson(response, 200, scopedModels(await models(deps), caller));
  }),
  read(
    '/v1/models/{id}',
    async ({ deps, response, context, caller }, id) => {
      context.model = id;
      checkModelAllowed(caller, id);
      sendJson(response, 200, await modelEntry(deps, id));
    },
    modelIdOf,
  ),
  read('/v1/fleet', async ({ deps, response, caller }) => {
    sendJson(response, 200, scopedFleet(await topology(deps), caller));
  }),
  read('/v1/fleet/stats', async ({ deps, response }) => {
    sendJson(response, 200, await fleetStats(deps.view, deps.nodes, deps.metrics.served));
  }),
  // What this token may do, so the fleet page shows node controls only to an operator.
  read('/v1/fleet/rights', ({ response, caller }) =>
    sendJson(response, 200, JSON.stringify({ operator: caller.rights === 'operate' })),
  ),
  {
    method: 'GET',
    pattern: '/v1/fleet/route',
    rights: 'use',
    label: '/v1/fleet/route',
    listed: false,
    // docs/design.md D33: the live decision, from the scheduler the requests go through; changes
    // nothing.
    async handle({ deps, response, target }) {
      const model = new URLSearchParams(target.query).get('model') ?? '';
      if (model === '') {
        throw new GatewayError(400, 'name the model to route: GET /v1/fleet/route?model=<name>');
      }
      // docs/design.md D31: a variant is placed as its model is, so it is routed so too.
      const route = deps.names === undefined ? model : deps.names.route(model);
      const decision = await deps.scheduling.route(route);
      sendJson(response, 200, JSON.stringify(route === model ? decision : { ...decision, model }));
    },
  },
  // The page's charts (history/fleet-history.ts): a limited caller sees only its models.
  {
    method: 'GET',
    pattern: '/v1/fleet/history',
    rights: 'use',
    label: 'other',
    listed: true,
    handle({ deps, response, target, caller }) {
      if (deps.history === undefined) {
        throw notServed(target.method, target.path);
      }
      sendJson(response, 200, deps.history.reply(caller.allows));
    },
  },
  usageRoute('/v1/fleet/usage', 'use'),
  usageRoute('/v1/fleet/activity', 'operate'),
  nodeAction('start'),
  nodeAction('stop'),
  {
    method: 'GET',
    pattern: '/v1/fleet/nodes/{name}/logs',
    rights: 'operate',
    label: '/v1/fleet/nodes/{name}/logs',
    listed: true,
    param: nodeLogsOf,
    async handle({ deps, response, target, caller }, name) {
      const ask = { name, rights: caller.rights, query: target.query };
      sendJson(response, 200, await nodeLogs(deps, ask));
    },
  },
  read('/metrics', async ({ deps, request, response }) => {
    const { contentType, body } = await deps.metrics.exposition(
      wantsOpenMetrics(request.headers.accept),
    );
    response.writeHead(200, { 'content-type': contentType });
    response.end(body);
  }),
];

/** A POST /v1/<endpoint> with no entry of its own: a model request all the same. */
const MODEL_ROUTE: GatewayRoute = {
  method: 'POST',
  pattern: '/v1/<endpoint>',
  rights: 'use',
  label: 'other',
  listed: false,
  handle: answerModel,
};

/** Exact paths by method, then the ones with a parameter, in table order. */
const exact = new Map<string, Map<string, GatewayRoute>>();
const withParam: GatewayRoute[] = [];
for (const route of GATEWAY_ROUTES) {
  if (route.param === undefined) {
    const byPath = exact.get(route.method) ?? new Map<string, GatewayRoute>();
    exact.set(route.method, byPath.set(route.pattern, route));
  } else {
    withParam.push(route);
  }
}
/** The label of each exact path, whatever the method (a wrong method is still that route's). */
const labelByPath = new Map(GATEWAY_ROUTES.map((route) => [route.pattern, route.label]));

/** The route for a request and its parameter ('' when none), or undefined when none serves it. */
export function routeFor(
  method: string | undefined,
  path: string,
): { readonly route: GatewayRoute; readonly param: string } | undefined {
  const found = method === undefined ? undefined : exact.get(method)?.get(path);
  if (found !== undefined) {
    return { route: found, param: '' };
  }
  for (const route of withParam) {
    const param = route.method === method ? route.param?.(path) : undefined;
    if (param !== undefined) {
      return { route, param };
    }
  }
  return isModelEndpoint(method, path) ? { route: MODEL_ROUTE, param: '' } : undefined;
}

/** The metrics route label of a path (query removed): a fixed set, whatever a caller sends. */
export function routeLabel(path: string, isPage: boolean): MetricsRoute {
  const label = labelByPath.get(path);
  if (label !== undefined) {
    return label;
  }
  if (isPage) {
    return 'page';
  }
  // A wrong method is still that route's, as for an exact path.
  return withParam.find((route) => route.param?.(path) !== undefined)?.label ?? 'other';
}

/** What the gateway serves (spec §4.2 rule 2): the listed routes, the page, model requests. */
export const SERVED_PATHS = [
  ...GATEWAY_ROUTES.filter((route) => route.listed).map(
    (route) => `${route.method} ${route.pattern}`,
  ),
  'GET / (the fleet page)',
  'POST /v1/<endpoint> with a "model" in its JSON body (chat/completions, completions, responses, embeddings, rerank, messages, messages/count_tokens, …)',
];

/** The 404 for anything else, naming what the gateway serves (spec §4.2 rule 2). */
export function notServed(method: string | undefined, path: string): GatewayError {
  return new GatewayError(
    404,
    `the gateway serves ${SERVED_PATHS.join('; ')}; not ${method ?? ''} ${path}`,
  );
}
