/**
 * The gateway's `GET /metrics`, end to end: the built gateway in front of a real daemon that wakes
 * the real llama-server on the tiny model. The exposition is parsed with the Prometheus text parser
 * and its values are shown to move with real traffic: requests by route, model, node and status
 * class, first-byte and duration histograms, the wake and its duration, and the node's state and
 * readiness read from its snapshot.
 */
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  parsePrometheus,
  type PromSample,
  sampleValue,
} from '../../src/core/metrics/prometheus.ts';
import { chat } from '../support/http/chat.ts';
import { readSse } from '../support/http/sse.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { authorized, startGatewayFleet } from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const value = sampleValue;

describe('gateway GET /metrics', () => {
  it('is behind the token, parses, and moves with real requests, wakes and node state', async () => {
    const model = await writeTinyModel(join(await tempDir(), 'tiny.gguf'));
    const fleet = await startGatewayFleet([
      {
        name: 'a',
        svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:{port}\n`,
      },
    ]);
    const get = (path: string, token?: string | null): Promise<Response> =>
      fetch(`${fleet.url}${path}`, { headers: authorized(token) });
    const scrape = async (): Promise<PromSample[]> => {
      const reply = await get('/metrics');
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      return parsePrometheus(await reply.text());
    };
    const ask = (body: Record<string, unknown>): Promise<Response> =>
      chat(fleet.url, body, { headers: authorized() });

    expect((await get('/metrics', null)).status).toBe(401);
    const before = await scrape();
    expect(value(before, 'svc_gateway_node_state', { node: 'a', state: 'running' })).toBe(0);
    expect(value(before, 'svc_gateway_wakes_total')).toBeUndefined();

    // The first request wakes node a; the second streams from it.
    const woken = await ask({ model: 'tiny' });
    expect(woken.status).toBe(200);
    await woken.json();
    const streamed = await ask({ model: 'tiny', stream: true });
    expect(streamed.status).toBe(200);
    const { events } = await readSse(streamed.body as ReadableStream<Uint8Array>);
    expect(events.at(-1)?.data).toBe('[DONE]');
    // A model nothing describes: refused before routing, so no series carries its name.
    expect((await ask({ model: 'no-such-model' })).status).toBe(404);

    // A wake ends when the waker's own readiness poll sees the engine ready; a status refresh may
    // see it first and the request be served before that, so the wake is counted a poll later.
    const after = await eventually(
      scrape,
      (samples) => value(samples, 'svc_gateway_wakes_total', { node: 'a' }) !== undefined,
      'the wake counted in svc_gateway_wakes_total',
    );
    const served = { route: '/v1/chat/completions', model: 'tiny', node: 'a', status_class: '2xx' };
    expect(value(after, 'svc_gateway_requests_total', served)).toBe(2);
    expect(
      value(after, 'svc_gateway_requests_total', {
        route: '/v1/chat/completions',
        model: '',
        node: '',
        status_class: '4xx',
      }),
    ).toBe(1);
    expect(after.some((sample) => sample.labels['model'] === 'no-such-model')).toBe(false);
    // The 401 and the first scrape were requests too.
    expect(
      value(after, 'svc_gateway_requests_total', { route: '/metrics', status_class: '4xx' }),
    ).toBe(1);
    expect(
      value(after, 'svc_gateway_requests_total', { route: '/metrics', status_class: '2xx' }),
    ).toBeGreaterThanOrEqual(1);
    const route = { route: '/v1/chat/completions' };
    expect(value(after, 'svc_gateway_request_duration_seconds_count', route)).toBe(3);
    expect(value(after, 'svc_gateway_time_to_first_byte_seconds_count', route)).toBe(2);
    expect(value(after, 'svc_gateway_request_duration_seconds_sum', route)).toBeGreaterThan(0);
    expect(value(after, 'svc_gateway_wakes_total', { node: 'a', outcome: 'ready' })).toBe(1);
    expect(value(after, 'svc_gateway_wake_duration_seconds_count', { node: 'a' })).toBe(1);
    expect(value(after, 'svc_gateway_requests_waiting_on_wake')).toBe(0);
    expect(value(after, 'svc_gateway_node_state', { node: 'a', state: 'running' })).toBe(1);
    expect(value(after, 'svc_gateway_node_ready', { node: 'a' })).toBe(1);
    expect(value(after, 'svc_gateway_upstream_errors_total')).toBeUndefined();

    // OpenMetrics when the scraper asks for it, as Prometheus does.
    const open = await fetch(`${fleet.url}/metrics`, {
      headers: { ...authorized(), accept: 'application/openmetrics-text; version=1.0.0' },
    });
    expect(open.headers.get('content-type')).toContain('application/openmetrics-text');
    expect((await open.text()).trimEnd().endsWith('# EOF')).toBe(true);
  });
});
