/**
 * The documented replies (reply-schemas.ts) hold against real ones: the gateway's HTTP surface
 * built as startGateway builds it, with its real scheduler, usage book and history, over a fake
 * node driver, and asked without listening (light-my-request on its request handler). Each reply
 * is checked with the control API's own validator, which names the first field that differs (a
 * reply whose schema refers to another, with TypeBox's Value.Check and the referred schema).
 */
import type { RequestListener } from 'node:http';

import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import inject from 'light-my-request';
import { beforeAll, describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import { fleetViewOver } from '../../../test/support/scheduling/fleet-view-over.ts';
import { validateBody } from '../../core/control-api/validate-body.ts';
import type { NodeDriver } from '../../core/fleet/drivers/node-driver.ts';
import type { Fleet } from '../../core/fleet/file/fleet-file.ts';
import { Scheduler } from '../../core/fleet/scheduling/scheduler.ts';
import { schedulerSettings } from '../../core/fleet/scheduling/settings.ts';
import { schedulerOptionsOf } from '../../core/fleet/scheduling/settings-of-fleet.ts';
import { createLogger } from '../../core/logger.ts';
import { FleetHistory } from '../history/fleet-history.ts';
import { buildGateway } from '../http/app.ts';
import { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import { GatewayScheduler } from '../scheduling/gateway-scheduler.ts';
import { CallerUsage } from '../usage/caller-usage.ts';
import {
  ActivitySchema,
  GatewayErrorSchema,
  HealthSchema,
  HistorySchema,
  ModelEntrySchema,
  ModelListSchema,
  RightsSchema,
  RouteDecisionSchema,
  UsageSchema,
} from './reply-schemas.ts';

const TOKEN = 'gateway-token-for-tests';
const OPERATOR = 'operator-token-for-tests';

/** RFC 3339, as the replies write it (Date.toISOString). */
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

async function gatewayHandler(): Promise<RequestListener> {
  const fleet: Fleet = {
    path: '/fleet/fleet.yaml',
    nodes: [daemonNode('a', { group: 'g' }), daemonNode('b', { group: 'g', port: 4243 })],
    groups: new Map([['g', { max: 1 }]]),
  };
  const running = { state: 'running', runner: 'llamacpp', version: 'dev', model: 'm' } as const;
  const driver: Required<NodeDriver> = {
    status: (node) =>
      Promise.resolve({
        ok: true,
        value: node.name === 'a' ? { ...running, servedName: 'm', ready: 'ready' } : running,
      }),
    wakeSource: () =>
      Promise.resolve({ source: '/fleet/b.svc', config: { runner: 'llamacpp', modelId: 'n' } }),
    start: () => Promise.reject(new Error('no starts here')),
    stop: () => Promise.reject(new Error('no stops here')),
    stats: () => Promise.reject(new Error('no reads here')),
    logs: () => Promise.reject(new Error('no logs here')),
  };
  const { states, view } = fleetViewOver(fleet, driver);
  const scheduler = new Scheduler(schedulerSettings(schedulerOptionsOf(fleet, 60_000)));
  const metrics = new GatewayMetrics(() => view.all(), scheduler);
  const logger = createLogger('error', { write: () => undefined });
  const usage = new CallerUsage(new Date('2026-01-02T03:04:05Z'));
  for (const [caller, status] of [
    ['alice', 200],
    ['alice', 429],
    ['ci-bot', 403],
  ] as const) {
    usage.ended({
      caller,
      model: 'm',
      ...(status === 200
        ? { node: 'a', usage: { promptTokens: 12, completionTokens: 5, cachedTokens: 4 } }
        : {}),
      status,
      atMs: Date.now(),
      totalMs: 40,
      ...(status === 200 ? { queueMs: 3, ttfbMs: 20 } : {}),
    });
  }
  const history = new FleetHistory({
    nodes: fleet.nodes,
    readout: scheduler,
    tokensOf: (node) => usage.completionTokensOf(node),
    snapshots: () => states.current().snapshots,
    now: () => Date.now(),
    every: (_ms, run) => {
      run();
      return () => undefined;
    },
  });
  const scheduling = new GatewayScheduler({
    scheduler,
    view,
    waker: { wakeNode: () => Promise.reject(new Error('no wakes here')) },
    available: () => Promise.resolve({ text: '', served: [] }),
    machines: { wake: () => Promise.reject(new Error('no machines here')) },
    commands: { run: () => Promise.reject(new Error('no commands here')) },
    driver,
    logger,
    timers: { now: () => Date.now(), after: () => () => undefined },
    wakeTimeoutMs: 60_000,
  });
  const server = buildGateway({
    view,
    scheduling,
    metrics,
    page: new Map(),
    nodes: driver,
    readout: scheduler,
    usage,
    history,
    logger,
    token: TOKEN,
    operatorToken: OPERATOR,
    replyTimeoutMs: 60_000,
    startedAt: Date.now(),
  });
  // The nodes' first answers, as a listening gateway has them before its first requests.
  await view.all();
  return server.listeners('request')[0] as RequestListener;
}

let handler: RequestListener;
beforeAll(async () => {
  FormatRegistry.Set('date-time', (value) => RFC3339.test(value));
  handler = await gatewayHandler();
});

async function get(url: string, token = TOKEN): Promise<{ status: number; body: unknown }> {
  const reply = await inject(handler, {
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: reply.statusCode, body: reply.json() };
}

/** Undefined when `body` holds to `schema`, else the validator's words for the first difference. */
function problemOf(schema: TSchema, body: unknown): string | undefined {
  try {
    validateBody(schema, body);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('the documented replies hold against real ones', () => {
  it('GET /v1/fleet/usage, every caller for the operator and only itself for another', async () => {
    const all = await get('/v1/fleet/usage', OPERATOR);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ callers: [{ name: 'alice' }, { name: 'ci-bot' }] });
    expect(problemOf(UsageSchema, all.body)).toBeUndefined();
    const own = await get('/v1/fleet/usage');
    expect(own).toMatchObject({ status: 200, body: { callers: [] } });
    expect(problemOf(UsageSchema, own.body)).toBeUndefined();
  });

  it('GET /v1/fleet/activity, with tokens and without, and its refusal to another token', async () => {
    const { status, body } = await get('/v1/fleet/activity?limit=3', OPERATOR);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      requests: [{ caller: 'ci-bot', node: null }, { caller: 'alice' }, { promptTokens: 12 }],
    });
    expect(problemOf(ActivitySchema, body)).toBeUndefined();
    const refused = await get('/v1/fleet/activity');
    expect(refused.status).toBe(403);
    expect(problemOf(GatewayErrorSchema, refused.body)).toBeUndefined();
  });

  it('GET /v1/fleet/route, a decision to serve and a refusal with its reason', async () => {
    const served = await get('/v1/fleet/route?model=m');
    expect(served).toMatchObject({ status: 200, body: { action: 'serve', node: 'a' } });
    expect(problemOf(RouteDecisionSchema, served.body)).toBeUndefined();
    const refused = await get('/v1/fleet/route?model=nothing-serves-this');
    expect(refused).toMatchObject({ status: 200, body: { action: 'refuse' } });
    expect(problemOf(RouteDecisionSchema, refused.body)).toBeUndefined();
    const unnamed = await get('/v1/fleet/route');
    expect(unnamed.status).toBe(400);
    expect(problemOf(GatewayErrorSchema, unnamed.body)).toBeUndefined();
  });

  it('the other closed replies: health, rights, history, a refused token', async () => {
    expect(problemOf(HealthSchema, (await get('/health')).body)).toBeUndefined();
    expect(problemOf(RightsSchema, (await get('/v1/fleet/rights')).body)).toBeUndefined();
    const history = await get('/v1/fleet/history');
    expect(history.body).toMatchObject({ groups: [{ name: 'g', members: ['a', 'b'] }] });
    expect(problemOf(HistorySchema, history.body)).toBeUndefined();
    const refused = await get('/v1/fleet', 'not-a-token');
    expect(refused.status).toBe(401);
    expect(problemOf(GatewayErrorSchema, refused.body)).toBeUndefined();
  });

  it('the model list and one model, their entries by reference', async () => {
    const list = await get('/v1/models');
    expect(list.body).toMatchObject({ data: [{ id: 'm', svc: { state: 'running' } }] });
    expect(Value.Check(ModelListSchema, [ModelEntrySchema], list.body)).toBe(true);
    const one = await get('/v1/models/m');
    expect(one.status).toBe(200);
    expect(problemOf(ModelEntrySchema, one.body)).toBeUndefined();
    const emptyEntry = { ...(list.body as object), data: [{}] };
    expect(Value.Check(ModelListSchema, [ModelEntrySchema], emptyEntry)).toBe(false);
  });

  it('finds a reply that differs from its schema, naming the field', () => {
    const reply = { since: '2026-01-02T03:04:05.000Z', callers: [{ name: 'a', models: [{}] }] };
    expect(problemOf(UsageSchema, reply)).toMatch(/^callers\.0\.models\.0\.\w+ is required$/);
    const decision = { model: 'm', action: 'route', stops: [], nodes: [], reason: '', queued: 0 };
    expect(problemOf(RouteDecisionSchema, decision)).toMatch(/^action must be one of serve, /);
  });
});
