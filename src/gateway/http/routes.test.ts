/**
 * The gateway's route table (routes.ts): each request finds the one entry that serves it, the
 * metrics route label is a fixed set whatever the path, and the 404 names what is served.
 */
import { describe, expect, it } from 'vitest';

import { isModelEndpoint } from '../bodies/request-target.ts';
import { GATEWAY_ROUTES, MODEL_PATHS, notServed, routeFor, routeLabel } from './routes.ts';

const patternOf = (method: string, path: string): string | undefined =>
  routeFor(method, path)?.route.pattern;

describe('routeFor', () => {
  it('finds the entry for each request, with its parameter', () => {
    expect(patternOf('POST', '/v1/chat/completions')).toBe('/v1/chat/completions');
    expect(routeFor('GET', '/v1/models/org/model')).toMatchObject({ param: 'org/model' });
    expect(routeFor('POST', '/v1/fleet/nodes/a%20b/start')).toMatchObject({
      route: { pattern: '/v1/fleet/nodes/{name}/start', rights: 'operate' },
      param: 'a b',
    });
    expect(patternOf('POST', '/v1/fleet/nodes/a/stop')).toBe('/v1/fleet/nodes/{name}/stop');
    expect(patternOf('GET', '/v1/fleet/nodes/a/logs')).toBe('/v1/fleet/nodes/{name}/logs');
    expect(patternOf('GET', '/v1/fleet/activity')).toBe('/v1/fleet/activity');
  });

  it('sends any other POST /v1/<endpoint> to a model, and nothing of its own', () => {
    expect(routeFor('POST', '/v1/audio/speech')?.route).toMatchObject({ label: 'other' });
    expect(patternOf('POST', '/v1/audio/speech')).toBe('/v1/<endpoint>');
    expect(routeFor('POST', '/v1/models')).toBeUndefined();
    expect(routeFor('POST', '/v1/fleet/nodes/a/logs')).toBeUndefined();
    expect(routeFor('GET', '/v1/chat/completions')).toBeUndefined();
    expect(routeFor('GET', '/v1/models/')).toBeUndefined();
  });

  it('has one entry per method and pattern', () => {
    const keys = GATEWAY_ROUTES.map((route) => `${route.method} ${route.pattern}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('routeLabel', () => {
  it('maps every path onto a fixed set of labels, whatever the method', () => {
    expect(routeLabel('/v1/chat/completions', false)).toBe('/v1/chat/completions');
    expect(routeLabel('/v1/models/org/model', false)).toBe('/v1/models/{id}');
    expect(routeLabel('/v1/fleet/nodes/a/start', false)).toBe('/v1/fleet/nodes/{name}/start');
    expect(routeLabel('/v1/fleet/nodes/a/stop', false)).toBe('/v1/fleet/nodes/{name}/stop');
    expect(routeLabel('/v1/fleet/nodes/a/logs', false)).toBe('/v1/fleet/nodes/{name}/logs');
    expect(routeLabel('/v1/fleet/rights', false)).toBe('/v1/fleet/rights');
    expect(routeLabel('/', true)).toBe('page');
    expect(routeLabel('/wp-admin/anything', false)).toBe('other');
    expect(routeLabel('/v1/made-up', false)).toBe('other');
  });
});

describe('notServed', () => {
  it('names what the gateway serves', () => {
    const error = notServed('GET', '/nope');
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/^the gateway serves GET \/health; GET \/v1\/models; /);
    expect(error.message).toContain('GET /v1/models/{id}');
    expect(error.message).toMatch(/not GET \/nope$/);
  });
});

describe('MODEL_PATHS', () => {
  it.each(MODEL_PATHS)('is a model request: POST %s (request-target.ts)', (path) => {
    expect(isModelEndpoint('POST', path)).toBe(true);
  });
});
