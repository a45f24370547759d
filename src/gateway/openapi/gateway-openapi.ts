/**
 * The published description of the gateway's HTTP surface (spec §4.2), generated from its route
 * table (http/routes.ts) and what route-docs.ts says of each route, so it cannot drift from the
 * dispatch: docs/gateway-openapi.json holds the generated document (`npm run openapi`), and a
 * test keeps the two equal. Security comes from each route's rights (docs/design.md D28, D29).
 */
import type { TSchema } from '@sinclair/typebox';

import { LogsResponseSchema, StatsSchema } from '../../core/contract/schemas.ts';
import { plain as plainSchema } from '../../core/control-api/openapi.ts';
import { GATEWAY_ROUTES, type GatewayRoute, routeFor } from '../http/routes.ts';
import { GatewayErrorSchema, ModelEntrySchema } from './reply-schemas.ts';
import { MODEL_REFUSALS, type Refusals, ROUTE_DOCS, type RouteDoc } from './route-docs.ts';

type Json = Record<string, unknown>;

/** Every route the dispatch answers: the table, and the entry for any other model endpoint. */
export function documentedRoutes(): readonly GatewayRoute[] {
  const other = routeFor('POST', '/v1/any-other-endpoint')?.route;
  return other === undefined ? GATEWAY_ROUTES : [...GATEWAY_ROUTES, other];
}

export const routeKey = (route: Pick<GatewayRoute, 'method' | 'pattern'>): string =>
  `${route.method} ${route.pattern}`;

/** Schemas a reply refers to by `$ref` (their `$id`), published under components. */
const REFERRED: readonly TSchema[] = [ModelEntrySchema, StatsSchema, LogsResponseSchema];

/** A TypeBox schema as plain JSON Schema, its refs (a bare `$id`) pointed at the components. */
function plain(schema: TSchema): Json {
  return JSON.parse(
    JSON.stringify(plainSchema(schema), (key, value: unknown) =>
      key === '$ref' && typeof value === 'string' && !value.startsWith('#')
        ? `#/components/schemas/${value}`
        : value,
    ),
  ) as Json;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Invalid request (the message names what is wrong)',
  401: 'Bearer token missing or wrong (`invalid_api_key`); carries WWW-Authenticate: Bearer',
  403: 'Not allowed to this caller',
  404: 'Not found',
  409: 'Refused while busy; nothing was changed',
  413: 'Body too large',
  429: 'Queue full; carries Retry-After',
  502: 'A node failed to answer; names it',
  503: 'Unavailable now; carries Retry-After',
  504: 'Timed out',
};

function errorReply(status: number, codes: readonly string[]): Json {
  const named = codes.map((code) => `\`${code}\``).join(', ');
  return {
    description: `${STATUS_TEXT[status] ?? 'Error'}${named === '' ? '' : `: ${named}`}`,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/GatewayError' } } },
  };
}

const MODEL_BODY = {
  type: 'object',
  required: ['model'],
  properties: {
    model: { type: 'string', minLength: 1, description: 'A served name, alias or variant' },
    stream: { type: 'boolean', description: 'Server-sent events; no reply timeout applies' },
  },
  additionalProperties: true,
};

/** What the gateway adds to an engine's reply (docs/gateway.md, docs/design.md D30). */
const ENGINE_HEADERS = {
  'x-svc-node': { description: 'The node that answered', schema: { type: 'string' } },
  'x-svc-fallback': {
    description: 'Why a fallback answered, when one did',
    schema: { type: 'string', enum: ['waking', 'queueFull', 'failed'] },
  },
  'server-timing': {
    description: "The gateway's and the engine's time",
    schema: { type: 'string' },
  },
};

function replyContent(reply: RouteDoc['reply'], ref: (schema: TSchema) => Json): Json {
  switch (reply) {
    case 'engine':
      return {
        'application/json': { schema: { type: 'object', additionalProperties: true } },
        'text/event-stream': { schema: { type: 'string' } },
      };
    case 'metrics':
      return {
        'text/plain; version=0.0.4': { schema: { type: 'string' } },
        'application/openmetrics-text; version=1.0.0': { schema: { type: 'string' } },
      };
    case 'page':
      return { 'text/html; charset=utf-8': { schema: { type: 'string' } } };
    default:
      return { 'application/json': { schema: ref(reply) } };
  }
}

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly doc: RouteDoc;
  /** `caller`, `operator`, or none (the page). */
  readonly security: 'caller' | 'operator' | 'none';
  readonly body?: Json;
}

/** Routes outside the table: the page's files, and a model endpoint whose body is a form. */
const EXTRA: readonly Operation[] = [
  {
    method: 'GET',
    path: '/',
    security: 'none',
    doc: {
      summary: 'The fleet page (its scripts and styles under /page/ need no token either)',
      reply: 'page',
      refusals: {},
    },
  },
  {
    method: 'POST',
    path: '/v1/audio/transcriptions',
    security: 'caller',
    doc: {
      summary: 'Transcription (OpenAI): a form routed by its "model" field',
      description:
        'Any multipart/form-data body POSTed to a model endpoint is routed by its form field named "model", found among the first 1 MiB (docs/gateway.md).',
      reply: 'engine',
      refusals: MODEL_REFUSALS,
    },
    body: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['model'],
            properties: {
              model: { type: 'string' },
              file: { type: 'string', contentMediaType: 'application/octet-stream' },
            },
            additionalProperties: true,
          },
        },
      },
    },
  },
];

const openApiPath = (pattern: string): string => pattern.replace(/<(\w+)>/g, '{$1}');

function operationOf(route: GatewayRoute, doc: RouteDoc): Operation {
  return {
    method: route.method,
    path: openApiPath(route.pattern),
    doc,
    security: route.rights === 'operate' ? 'operator' : 'caller',
    ...(route.method === 'POST' && doc.reply === 'engine'
      ? { body: { required: true, content: { 'application/json': { schema: MODEL_BODY } } } }
      : {}),
  };
}

function parametersOf(path: string, doc: RouteDoc): Json[] {
  const inPath = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: doc.param ?? name,
    schema: { type: 'string' },
  }));
  const inQuery = (doc.query ?? []).map((query) => ({
    name: query.name,
    in: 'query',
    required: query.required ?? false,
    description: query.description,
    schema: query.schema,
  }));
  return [...inPath, ...inQuery];
}

export function gatewayApiDocument(): Json {
  const components: Json = { GatewayError: plain(GatewayErrorSchema) };
  for (const schema of REFERRED) {
    components[String(schema.$id)] = plain(schema);
  }
  const ref = (schema: TSchema): Json => {
    const name = String(schema.$id);
    components[name] ??= plain(schema);
    return { $ref: `#/components/schemas/${name}` };
  };
  const operations = [
    ...documentedRoutes().flatMap((route) => {
      const doc = ROUTE_DOCS[routeKey(route)];
      return doc === undefined ? [] : [operationOf(route, doc)];
    }),
    ...EXTRA,
  ];
  const paths: Record<string, Json> = {};
  for (const { method, path, doc, security, body } of operations) {
    const refusals: Refusals = security === 'none' ? {} : { 401: [], ...doc.refusals };
    const parameters = parametersOf(path, doc);
    const operation: Json = {
      summary: doc.summary,
      ...(doc.description === undefined ? {} : { description: doc.description }),
      security: security === 'none' ? [] : [{ [`${security}Token`]: [] }],
      ...(parameters.length === 0 ? {} : { parameters }),
      ...(body === undefined ? {} : { requestBody: body }),
      responses: {
        200: {
          description: 'OK',
          ...(doc.reply === 'engine' ? { headers: ENGINE_HEADERS } : {}),
          content: replyContent(doc.reply, ref),
        },
        ...Object.fromEntries(
          Object.entries(refusals).map(([status, codes]) => [
            status,
            errorReply(Number(status), codes ?? []),
          ]),
        ),
      },
    };
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc gateway',
      version: '1',
      description:
        'One OpenAI-compatible endpoint in front of a fleet of engines (docs/gateway.md). Every route but the fleet page needs a bearer token; an OPTIONS preflight needs none, and HEAD answers every GET without a body. Errors are OpenAI-shaped.',
    },
    security: [{ callerToken: [] }],
    paths,
    components: {
      securitySchemes: {
        callerToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "The gateway token, a caller's token from the fleet file's `callers`, or the operator token; none when the gateway has no token (loopback)",
        },
        operatorToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The operator token (`gateway.operatorTokenEnv`); the gateway token when the fleet file names none',
        },
      },
      schemas: components,
    },
  };
}
