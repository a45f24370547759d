/**
 * Usage per caller and model, the activity ring and their endpoints (docs/design.md D29): a reply
 * without usage counts the request and no tokens; the ring keeps the last 1,000, newest first;
 * the operator sees every caller, others only themselves; activity is the operator's alone.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';

import { tokenHash } from '../../core/fleet/file/fleet-callers.ts';
import { callerChecker } from '../callers/caller-rights.ts';
import { CallerUsage, type EndedRequest } from './caller-usage.ts';
import { usageEndpoint } from './usage-endpoints.ts';

const AT = '2026-11-28T08:00:00.000Z';
const request = (extra: Partial<EndedRequest> = {}): EndedRequest => ({
  caller: 'ci',
  model: 'tiny',
  node: 'a',
  status: 200,
  atMs: Date.parse(AT),
  totalMs: 10,
  ...extra,
});
const USED = { promptTokens: 57, completionTokens: 4, cachedTokens: 56 };

describe('CallerUsage', () => {
  it('adds tokens from usage, and only the request when a reply has none', async () => {
    const registry = new Registry();
    const usage = new CallerUsage(new Date(AT), [registry]);
    usage.ended(request({ usage: USED }));
    usage.ended(request({ usage: USED }));
    usage.ended(request({ status: 403 }));
    usage.ended(request({ caller: 'ana' }));
    expect(JSON.parse(usage.reply('ci'))).toEqual({
      since: AT,
      callers: [
        {
          name: 'ci',
          models: [
            {
              model: 'tiny',
              requests: 3,
              promptTokens: 114,
              completionTokens: 8,
              cachedTokens: 112,
              codes: { '200': 2, '403': 1 },
            },
          ],
        },
      ],
    });
    const text = await registry.metrics();
    expect(text).toContain(
      'svc_gateway_caller_requests_total{caller="ci",model="tiny",code="200"} 2',
    );
    expect(text).toContain(
      'svc_gateway_caller_requests_total{caller="ci",model="tiny",code="403"} 1',
    );
    expect(text).toContain(
      'svc_gateway_caller_tokens_total{caller="ci",model="tiny",kind="prompt"} 114',
    );
    expect(text).toContain(
      'svc_gateway_caller_tokens_total{caller="ci",model="tiny",kind="cached"} 112',
    );
    // A caller no reply reported usage for has its requests counted and no token series.
    expect(text).toContain(
      'svc_gateway_caller_requests_total{caller="ana",model="tiny",code="200"} 1',
    );
    expect(text).not.toContain('svc_gateway_caller_tokens_total{caller="ana"');
  });

  it('keeps the last 1,000 requests, newest first, with nulls for what is unknown', () => {
    const usage = new CallerUsage(new Date(AT));
    for (let index = 0; index < 1_005; index += 1) {
      usage.ended(request({ totalMs: index }));
    }
    const latest = usage.activity.latest(1_000);
    expect(latest).toHaveLength(1_000);
    expect(latest[0]?.totalMs).toBe(1_004);
    expect(latest.at(-1)?.totalMs).toBe(5);
    expect(usage.activity.latest()).toHaveLength(100);
    expect(latest[0]).toEqual({
      at: AT,
      caller: 'ci',
      model: 'tiny',
      node: 'a',
      status: 200,
      queueMs: 0,
      ttfbMs: null,
      totalMs: 1_004,
      promptTokens: null,
      completionTokens: null,
      cachedTokens: null,
    });
  });
});

describe('usage endpoints', () => {
  const callerOf = callerChecker({
    token: 'gw',
    operatorToken: 'op',
    callers: [
      { name: 'ci', tokenSha256: tokenHash('ci'), wake: true, upstreams: true, priority: 'normal' },
    ],
  });
  const usage = new CallerUsage(new Date(AT));
  usage.ended(request());
  usage.ended(request({ caller: 'gateway' }));
  const get = (path: string, token: string): string | undefined => {
    const caller = callerOf(`Bearer ${token}`);
    if (caller === undefined) {
      throw new Error('unknown token');
    }
    const [bare = '', query = ''] = path.split('?');
    return usageEndpoint(usage, { method: 'GET', path: bare, query }, caller);
  };
  const names = (body: string | undefined): string[] =>
    (JSON.parse(body ?? '{}') as { callers: { name: string }[] }).callers.map((c) => c.name);

  it('shows the operator every caller, any other token only itself', () => {
    expect(names(get('/v1/fleet/usage', 'op'))).toEqual(['ci', 'gateway']);
    expect(names(get('/v1/fleet/usage', 'ci'))).toEqual(['ci']);
    expect(names(get('/v1/fleet/usage', 'gw'))).toEqual(['gateway']);
  });

  it('gives the activity to the operator alone, bounded by limit', () => {
    expect(JSON.parse(get('/v1/fleet/activity?limit=1', 'op') ?? '')).toMatchObject({
      requests: [{ caller: 'gateway' }],
    });
    expect(() => get('/v1/fleet/activity', 'gw')).toThrow(/operator token only/);
    expect(() => get('/v1/fleet/activity?limit=1001', 'op')).toThrow(/limit must be/);
    expect(get('/v1/fleet/other', 'op')).toBeUndefined();
  });
});
