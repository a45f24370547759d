/**
 * The control API's routes (spec §4.1): one table shared by the server, the OpenAPI generator,
 * the not-found and wrong-method replies, and (later) the gateway's node client.
 */
import { type TSchema, Type } from '@sinclair/typebox';

import {
  DeployConfigPushSchema,
  LogsResponseSchema,
  MessageSchema,
  StartRequestSchema,
  StatsSchema,
  StatusResponseSchema,
} from '../contract/schemas.ts';

export type RouteName =
  'status' | 'start' | 'stop' | 'metrics' | 'logs' | 'deployConfig' | 'prometheus';

export interface RouteSpec {
  readonly name: RouteName;
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly path: string;
  readonly summary: string;
  readonly body?: { readonly schema: TSchema; readonly required: boolean };
  readonly query?: readonly {
    readonly name: string;
    readonly description: string;
    readonly minimum: number;
  }[];
  readonly reply: TSchema;
  /** The reply's media type when it is not JSON: the Prometheus text exposition. */
  readonly text?: 'prometheus';
  /** Error statuses besides 401, which every route has. */
  readonly errors: readonly number[];
}

export const ROUTES: readonly RouteSpec[] = [
  {
    name: 'status',
    method: 'GET',
    path: '/v1/status',
    summary: 'Engine state',
    reply: StatusResponseSchema,
    errors: [],
  },
  {
    name: 'start',
    method: 'POST',
    path: '/v1/start',
    summary: 'Start the engine with the carried or the stored deploy config',
    body: { schema: StartRequestSchema, required: false },
    reply: StatusResponseSchema,
    errors: [400, 409],
  },
  {
    name: 'stop',
    method: 'POST',
    path: '/v1/stop',
    summary: 'Stop the engine (idempotent)',
    reply: StatusResponseSchema,
    errors: [500],
  },
  {
    name: 'metrics',
    method: 'GET',
    path: '/v1/metrics',
    summary: 'Engine counters and host readings',
    reply: StatsSchema,
    errors: [],
  },
  {
    name: 'logs',
    method: 'GET',
    path: '/v1/logs',
    summary: 'A bounded slice of the engine log',
    query: [
      { name: 'offset', description: 'Byte position; omitted reads the tail', minimum: 0 },
      { name: 'limit', description: 'Maximum bytes; capped by the service', minimum: 1 },
    ],
    reply: LogsResponseSchema,
    errors: [400],
  },
  {
    name: 'deployConfig',
    method: 'PUT',
    path: '/v1/deploy-config',
    summary: 'Store the deploy config the next start serves',
    body: { schema: DeployConfigPushSchema, required: true },
    reply: MessageSchema,
    errors: [400],
  },
  {
    name: 'prometheus',
    method: 'GET',
    path: '/metrics',
    summary:
      'The metrics reply and the daemon counters in the Prometheus text format (OpenMetrics when Accept asks); not activity',
    reply: Type.String({ $id: 'PrometheusText' }),
    text: 'prometheus',
    errors: [],
  },
];
