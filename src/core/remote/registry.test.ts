import { describe, expect, it } from 'vitest';

import { parseRegistryEntry, regionOfFunctionUrl, resolveRemote } from './registry.ts';

const entry = { start_url: 'https://a/start', stop_url: 'https://a/stop', region: 'eu-west-1' };

describe('resolveRemote', () => {
  it('takes the file, with the environment defaulting to the name', () => {
    expect(resolveRemote('cloud', entry, {})).toEqual({
      name: 'cloud',
      environment: 'cloud',
      region: 'eu-west-1',
      urls: { start_url: 'https://a/start', stop_url: 'https://a/stop' },
    });
  });

  it('lets SVC_REMOTE_…_URL and SVC_REMOTE_REGION override the file', () => {
    const remote = resolveRemote('cloud', entry, {
      SVC_REMOTE_START_URL: 'https://b/start',
      SVC_REMOTE_STATS_URL: 'https://b/stats',
      SVC_REMOTE_REGION: 'us-west-2',
    });
    expect(remote.urls).toEqual({
      start_url: 'https://b/start',
      stop_url: 'https://a/stop',
      stats_url: 'https://b/stats',
    });
    expect(remote.region).toBe('us-west-2');
  });

  it('falls back to AWS_REGION, then the region of a Function-URL host', () => {
    const { region: _region, ...noRegion } = entry;
    expect(resolveRemote('c', noRegion, { AWS_REGION: 'ap-south-1' }).region).toBe('ap-south-1');
    const lambda = {
      start_url: 'https://abc123.lambda-url.us-east-2.on.aws/',
      stop_url: 'https://def456.lambda-url.us-east-2.on.aws/',
    };
    expect(resolveRemote('c', lambda, {}).region).toBe('us-east-2');
    expect(regionOfFunctionUrl('https://example.com/')).toBeUndefined();
  });

  it('names what an incomplete or missing entry lacks', () => {
    expect(() => resolveRemote('c', { start_url: 'https://a/' }, {})).toThrow(
      'remote environment "c" is not fully configured: start_url, stop_url and region are all required (missing stop_url, region)',
    );
    expect(() => resolveRemote('c', undefined, {})).toThrow(
      'remote environment "c" is not registered: run svc remote add c',
    );
  });
});

describe('parseRegistryEntry', () => {
  it("reads the original's keys and refuses an unknown one naming the closest", () => {
    expect(
      parseRegistryEntry(JSON.stringify({ ...entry, seed_url: 'https://s/' }), 'r.json'),
    ).toEqual({
      ...entry,
      seed_url: 'https://s/',
    });
    expect(() => parseRegistryEntry('{"start_ulr": "https://a/"}', 'r.json')).toThrow(
      'r.json: unknown key "start_ulr": did you mean "start_url"?',
    );
    expect(() => parseRegistryEntry('{"stop_url": "nope"}', 'r.json')).toThrow(
      'stop_url: "nope" is not a URL',
    );
  });
});
