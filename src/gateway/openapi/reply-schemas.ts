/**
 * The gateway's replies as JSON Schema (TypeBox), for its OpenAPI document (gateway-openapi.ts)
 * and for the tests that hold real replies against it. The names of every field are fixed by
 * docs/design.md D29 (usage, activity) and D33 (route); the replies a caller's client reads
 * field by field are closed (`additionalProperties: false`), so a field added to one without
 * its schema fails the reply test. `/v1/fleet` and the model entries keep theirs open: they
 * carry each node's status as its daemon reports it.
 */
import { type Static, type TLiteral, Type } from '@sinclair/typebox';

import type { RouteAction, RouteVerdict } from '../../core/fleet/scheduling/route-decision.ts';
import type { NodeCondition, RejectReason } from '../../core/fleet/scheduling/types.ts';
import type { GatewayErrorCode } from '../../core/http/gateway-error.ts';

/** A union of string literals; `Exact` below keeps each list equal to its TypeScript type. */
function oneOf<T extends string>(values: readonly T[], options: object = {}) {
  return Type.Union(
    values.map((value): TLiteral<T> => Type.Literal(value)),
    options,
  );
}

/** Compiles only when A and B are the same set of strings. */
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const exact = <A, B>(proof: Exact<A, B>): Exact<A, B> => proof;

const ERROR_CODES = [
  'invalid_api_key',
  'insufficient_permissions',
  'model_not_allowed',
  'wake_not_allowed',
  'invalid_request_error',
  'model_not_found',
  'node_busy',
  'unknown_url',
  'request_too_large',
  'upstream_error',
  'loopback_only',
  'wake_failed',
  'wake_timeout',
  'queue_full',
  'queue_timeout',
  'group_busy',
  'reply_timeout',
  'shutting_down',
  'node_stopped',
  'internal_error',
] as const;
exact<(typeof ERROR_CODES)[number], GatewayErrorCode>(true);

/** docs/design.md D19: every refusal the gateway makes itself, OpenAI-shaped. */
export const GatewayErrorSchema = Type.Object(
  {
    error: Type.Object(
      {
        message: Type.String({ description: 'Names the node, model or field; never a token' }),
        type: oneOf([
          'invalid_request_error',
          'authentication_error',
          'permission_error',
          'rate_limit_error',
          'server_error',
        ]),
        code: oneOf(ERROR_CODES),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'GatewayError', additionalProperties: false },
);

export const HealthSchema = Type.Object(
  { ok: Type.Boolean() },
  { $id: 'Health', additionalProperties: false },
);

export const RightsSchema = Type.Object(
  { operator: Type.Boolean({ description: 'Whether this token may start and stop nodes' }) },
  { $id: 'Rights', additionalProperties: false },
);

export const ModelEntrySchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('model'),
    created: Type.Integer({ description: 'Unix seconds' }),
    owned_by: Type.String({ description: 'The node that serves it, or would wake for it' }),
    svc: Type.Object({
      state: oneOf(['running', 'loading', 'asleep']),
      nodes: Type.Array(Type.String()),
    }),
  },
  { $id: 'ModelEntry' },
);

export const ModelListSchema = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Type.Ref('ModelEntry')) },
  { $id: 'ModelList' },
);

export const FleetSchema = Type.Object(
  {
    nodes: Type.Array(
      Type.Object(
        { name: Type.String(), kind: Type.String(), state: Type.String() },
        { additionalProperties: true },
      ),
    ),
  },
  {
    $id: 'Fleet',
    description:
      "The fleet now, joined with the file: each node's kind, state, models and the scheduler's counts (docs/gateway.md)",
  },
);

export const FleetStatsSchema = Type.Object(
  {
    nodes: Type.Array(
      Type.Union([
        Type.Object(
          { name: Type.String(), stats: Type.Ref('Stats') },
          { additionalProperties: false },
        ),
        Type.Object({ name: Type.String(), error: Type.String() }, { additionalProperties: false }),
      ]),
    ),
  },
  { $id: 'FleetStats', additionalProperties: false },
);

const Count = Type.Integer({ minimum: 0 });

/** docs/design.md D29 `GET /v1/fleet/usage`. */
export const UsageSchema = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'When this gateway started counting' }),
    callers: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          models: Type.Array(
            Type.Object(
              {
                model: Type.String({ description: '"" for a model nothing serves' }),
                requests: Count,
                promptTokens: Count,
                completionTokens: Count,
                cachedTokens: Count,
                codes: Type.Record(Type.String({ pattern: '^[1-5][0-9][0-9]$' }), Count, {
                  description: 'Requests by HTTP status code',
                }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'Usage', additionalProperties: false },
);

const OrNull = <T extends ReturnType<typeof Type.Integer | typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** docs/design.md D29 `GET /v1/fleet/activity`: never a body or a header. */
export const ActivitySchema = Type.Object(
  {
    requests: Type.Array(
      Type.Object(
        {
          at: Type.String({ format: 'date-time', description: 'When it arrived' }),
          caller: Type.String(),
          model: Type.String(),
          node: OrNull(Type.String()),
          status: Type.Integer(),
          queueMs: Count,
          ttfbMs: OrNull(Count),
          totalMs: Count,
          promptTokens: OrNull(Count),
          completionTokens: OrNull(Count),
          cachedTokens: OrNull(Count),
        },
        { additionalProperties: false },
      ),
      { description: 'Newest first' },
    ),
  },
  { $id: 'Activity', additionalProperties: false },
);

const ACTIONS = ['serve', 'queue', 'wake', 'swap', 'fallback', 'refuse'] as const;
exact<(typeof ACTIONS)[number], RouteAction>(true);
const VERDICTS = [
  ...['serve', 'wake', 'stop', 'ready', 'full', 'loading', 'waking', 'candidate'],
  ...['holds', 'stopping', 'failed', 'wake-off', 'unusable', 'unreachable', 'unknown', 'other'],
] as const;
exact<(typeof VERDICTS)[number], RouteVerdict>(true);
const CONDITIONS = [
  'running',
  'starting',
  'stopping',
  'stopped',
  'unreachable',
  'unknown',
] as const;
exact<(typeof CONDITIONS)[number], NodeCondition | 'unknown'>(true);
const REFUSALS = [
  ...['queue_full', 'queue_timeout', 'group_busy', 'wake_timeout', 'wake_failed', 'no_node'],
  'wake_not_allowed',
] as const;
exact<(typeof REFUSALS)[number], RejectReason>(true);

/** docs/design.md D33 `GET /v1/fleet/route`: the decision as it would be taken now. */
export const RouteDecisionSchema = Type.Object(
  {
    model: Type.String(),
    action: oneOf(ACTIONS),
    node: Type.Optional(Type.String()),
    stops: Type.Array(Type.String(), { description: 'Nodes stopped first (a swap)' }),
    nodes: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          verdict: oneOf(VERDICTS),
          reason: Type.String(),
          state: oneOf(CONDITIONS),
        },
        { additionalProperties: false },
      ),
    ),
    reason: Type.String(),
    refusal: Type.Optional(oneOf(REFUSALS)),
    retryAfterSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
    queued: Count,
  },
  { $id: 'RouteDecision', additionalProperties: false },
);
export type RouteDecisionReply = Static<typeof RouteDecisionSchema>;

const Sample = (fields: Record<string, ReturnType<typeof Type.Integer | typeof Type.Number>>) =>
  Type.Array(Type.Object({ t: Type.Integer(), ...fields }, { additionalProperties: false }));

/** The fleet page's charts (history/fleet-history.ts). */
export const HistorySchema = Type.Object(
  {
    intervalSeconds: Type.Number(),
    windowSeconds: Type.Number(),
    nodes: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          samples: Sample({ inFlight: Count, tokensPerSecond: Type.Number() }),
        },
        { additionalProperties: false },
      ),
    ),
    models: Type.Array(
      Type.Object(
        { model: Type.String(), samples: Sample({ queued: Count, waitMs: Type.Number() }) },
        { additionalProperties: false },
      ),
    ),
    groups: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          members: Type.Array(Type.String()),
          holder: OrNull(Type.String()),
          swaps: Type.Array(
            Type.Object(
              { at: Type.String({ format: 'date-time' }), stopped: Type.String() },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'History', additionalProperties: false },
);

/** A start's or stop's reply: the node's name and its daemon's status. */
export const NodeStatusSchema = Type.Object(
  { name: Type.String() },
  {
    $id: 'NodeStatus',
    additionalProperties: true,
    description: "The node's name and its new status (the daemon's StatusResponse fields)",
  },
);
