/**
 * What the gateway's OpenAPI document says of each route (gateway-openapi.ts), keyed by the
 * route table's `METHOD pattern` (http/routes.ts): kept beside the table rather than in it, so the
 * dispatch on the hot path carries none of it. The rights a route needs come from the table
 * itself; a test fails when a route has no entry here, or an entry no route.
 */
import type { TSchema } from '@sinclair/typebox';

import { LogsResponseSchema } from '../../core/contract/schemas.ts';
import {
  ActivitySchema,
  FleetSchema,
  FleetStatsSchema,
  HealthSchema,
  HistorySchema,
  ModelEntrySchema,
  ModelListSchema,
  NodeStatusSchema,
  RightsSchema,
  RouteDecisionSchema,
  UsageSchema,
} from './reply-schemas.ts';

/** Refusal codes by status, besides the 401 every route behind the token has. */
export type Refusals = Readonly<Partial<Record<number, readonly string[]>>>;

export interface QueryDoc {
  readonly name: string;
  readonly description: string;
  readonly schema: Record<string, unknown>;
  readonly required?: boolean;
}

export interface RouteDoc {
  readonly summary: string;
  readonly description?: string;
  /** The path parameter's meaning, for a pattern with one. */
  readonly param?: string;
  readonly query?: readonly QueryDoc[];
  /** JSON reply; `metrics` for the Prometheus text, `engine` for a model's own reply. */
  readonly reply: TSchema | 'metrics' | 'engine' | 'page';
  readonly refusals: Refusals;
}

/** What a model request may be refused with (docs/gateway.md "Errors"). */
export const MODEL_REFUSALS: Refusals = {
  400: ['invalid_request_error'],
  403: ['model_not_allowed', 'wake_not_allowed'],
  404: ['model_not_found'],
  413: ['request_too_large'],
  429: ['queue_full'],
  502: ['upstream_error', 'loopback_only', 'wake_failed'],
  503: ['queue_timeout', 'group_busy', 'shutting_down', 'node_stopped'],
  504: ['wake_timeout', 'reply_timeout'],
};

const OPERATOR: Refusals = { 403: ['insufficient_permissions'], 404: ['unknown_url'] };
const NODE = 'The node, as the fleet file names it';
const FORCE: QueryDoc = {
  name: 'force',
  description:
    'true: stop a busy node anyway, or for a start the busy member holding its group (docs/gateway.md)',
  schema: { type: 'string', enum: ['true', 'false'] },
};

/** A node's start or stop: refused with `busy` (409) when it would cut requests off. */
const nodeControl = (summary: string, busy: string): RouteDoc => ({
  summary,
  param: NODE,
  query: [FORCE],
  reply: NodeStatusSchema,
  refusals: { ...OPERATOR, 400: ['invalid_request_error'], 409: [busy], 502: ['upstream_error'] },
});

const model = (summary: string): RouteDoc => ({
  summary,
  description:
    'Routed by the body\'s "model" (its name, an alias or a variant), woken if need be and proxied: the reply is the engine\'s own, streamed as server-sent events when "stream" is true.',
  reply: 'engine',
  refusals: MODEL_REFUSALS,
});

export const ROUTE_DOCS: Readonly<Record<string, RouteDoc>> = {
  'POST /v1/chat/completions': model('Chat completion (OpenAI)'),
  'POST /v1/completions': model('Text completion (OpenAI)'),
  'POST /v1/responses': model('Responses (OpenAI)'),
  'POST /v1/embeddings': model('Embeddings (OpenAI)'),
  'POST /v1/rerank': model('Rerank (llama-server)'),
  'POST /v1/messages': model('Messages (Anthropic, as llama-server serves it)'),
  'POST /v1/messages/count_tokens': model('Count tokens (Anthropic, as llama-server serves it)'),
  'POST /v1/<endpoint>': {
    ...model('Any other model endpoint'),
    param:
      'Any path under /v1/ but the gateway\'s own (models, fleet) and none holding "..": the engine answers its own 404 for one it lacks',
  },
  'GET /health': {
    summary: 'The gateway is up; touches no node',
    reply: HealthSchema,
    refusals: {},
  },
  'GET /v1/models': {
    summary: 'The models the caller may use, with where each runs',
    reply: ModelListSchema,
    refusals: {},
  },
  'GET /v1/models/{id}': {
    summary: 'One model of that list',
    param: 'The model (it may contain "/", sent as it is)',
    reply: ModelEntrySchema,
    refusals: { 403: ['model_not_allowed'], 404: ['model_not_found'] },
  },
  'GET /v1/fleet': {
    summary: 'The fleet now, joined with the file; a limited caller sees only its models',
    reply: FleetSchema,
    refusals: {},
  },
  'GET /v1/fleet/stats': {
    summary: "Each node's readings (its daemon's /v1/metrics), in file order",
    reply: FleetStatsSchema,
    refusals: {},
  },
  'GET /v1/fleet/rights': {
    summary: 'Whether this token may start and stop nodes',
    reply: RightsSchema,
    refusals: {},
  },
  'GET /v1/fleet/route': {
    summary: 'What the gateway would do with a request for the model now; changes nothing',
    query: [
      {
        name: 'model',
        description: 'A served name, alias or variant',
        schema: { type: 'string', minLength: 1 },
        required: true,
      },
    ],
    reply: RouteDecisionSchema,
    refusals: { 400: ['invalid_request_error'] },
  },
  'GET /v1/fleet/history': {
    summary: 'The last 10 minutes the fleet page charts',
    reply: HistorySchema,
    refusals: {},
  },
  'GET /v1/fleet/usage': {
    summary:
      'Requests and tokens per caller and model since the gateway started: every caller for the operator, else only its own',
    reply: UsageSchema,
    refusals: {},
  },
  'GET /v1/fleet/activity': {
    summary: 'The last requests, newest first; never a body or a header',
    query: [
      {
        name: 'limit',
        description: 'How many (default 100)',
        schema: { type: 'integer', minimum: 1, maximum: 1000 },
      },
    ],
    reply: ActivitySchema,
    refusals: { 400: ['invalid_request_error'], 403: ['insufficient_permissions'] },
  },
  'POST /v1/fleet/nodes/{name}/start': nodeControl(
    'Start the node through the scheduler (a full group swaps an idle member out)',
    'group_busy',
  ),
  'POST /v1/fleet/nodes/{name}/stop': nodeControl(
    "Stop the node's engine; refused while requests are in flight or queued for it",
    'node_busy',
  ),
  'GET /v1/fleet/nodes/{name}/logs': {
    summary: "A slice of the node's engine log, secrets masked (the daemon's /v1/logs)",
    param: NODE,
    query: [
      {
        name: 'offset',
        description: 'Byte position; omitted reads the tail',
        schema: { type: 'integer', minimum: 0 },
      },
      {
        name: 'limit',
        description: 'Maximum bytes; capped by the daemon',
        schema: { type: 'integer', minimum: 1 },
      },
    ],
    reply: LogsResponseSchema,
    refusals: { ...OPERATOR, 400: ['invalid_request_error'], 502: ['upstream_error'] },
  },
  'GET /metrics': {
    summary: "The gateway's Prometheus metrics (OpenMetrics when Accept asks)",
    reply: 'metrics',
    refusals: {},
  },
};
