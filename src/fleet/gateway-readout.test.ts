/**
 * What `svc fleet status` reads from the gateway: the `/v1/fleet` URL of the section's address,
 * the token from the environment before the .env, only the fields status shows, and a gateway
 * that does not answer as a reason, never a throw. The GET is injected: no request leaves.
 */
import { describe, expect, it } from 'vitest';

import type { FleetGateway } from '../core/fleet/file/fleet-file.ts';
import { askGateway, fleetUrl, gatewayAnswerOf, type GetText } from './gateway-readout.ts';

const GATEWAY: FleetGateway = {
  url: 'http://127.0.0.1:4000',
  tokenEnv: 'GW_TOKEN',
  ownTokenEnv: true,
  name: 'lab',
};

function recording(reply: { status: number; text: string } | Error) {
  const asked: { url: string; token: string | undefined }[] = [];
  const get: GetText = (url, token) => {
    asked.push({ url, token });
    return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply);
  };
  return { get, asked };
}

describe('fleetUrl', () => {
  it('takes the address with or without /v1 or a trailing slash', () => {
    for (const url of [
      'http://gw:4000',
      'http://gw:4000/',
      'http://gw:4000/v1',
      'http://gw:4000/v1/',
    ]) {
      expect(fleetUrl({ ...GATEWAY, url })).toBe('http://gw:4000/v1/fleet');
    }
  });
});

describe('gatewayAnswerOf', () => {
  it('keeps the waiting models and each node’s in-flight count and idle-stop time', () => {
    const answer = gatewayAnswerOf('lab', {
      queued: { gemma: 2, old: 0, junk: 'x' },
      nodes: [
        { name: 'a', state: 'running', inFlight: 1, idleStopAt: '2026-11-22T10:35:00.000Z' },
        { name: 'b', state: 'stopped' },
        { name: 'c', state: 'idle', problems: ['c.svc:4: unknown keyword "CONTEXTT"', 7] },
        { state: 'nameless' },
      ],
    });
    expect(answer).toEqual({
      ok: true,
      name: 'lab',
      queued: { gemma: 2 },
      nodes: new Map([
        ['a', { inFlight: 1, idleStopAt: '2026-11-22T10:35:00.000Z' }],
        ['b', {}],
        ['c', { problems: ['c.svc:4: unknown keyword "CONTEXTT"'] }],
      ]),
    });
  });

  it('refuses a body that is not a fleet', () => {
    expect(gatewayAnswerOf('lab', { object: 'list' })).toEqual({
      ok: false,
      name: 'lab',
      detail: 'its /v1/fleet reply is not a fleet',
    });
  });
});

describe('askGateway', () => {
  it('asks nothing when the fleet file names no gateway', async () => {
    const { get, asked } = recording({ status: 200, text: '{"nodes":[]}' });
    expect(await askGateway({}, [], get)).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('sends the token from the first layer that sets it', async () => {
    const { get, asked } = recording({ status: 200, text: '{"nodes":[]}' });
    const answer = await askGateway(
      { gateway: GATEWAY },
      [{ GW_TOKEN: '' }, { GW_TOKEN: 'from-dotenv' }],
      get,
    );
    expect(answer).toEqual({ ok: true, name: 'lab', queued: {}, nodes: new Map() });
    expect(asked).toEqual([{ url: 'http://127.0.0.1:4000/v1/fleet', token: 'from-dotenv' }]);
  });

  it('says why when the gateway does not answer, refuses the token or answers junk', async () => {
    const down = await askGateway(
      { gateway: GATEWAY },
      [],
      recording(new Error('connect ECONNREFUSED')).get,
    );
    expect(down).toEqual({
      ok: false,
      name: 'lab',
      detail: 'GET http://127.0.0.1:4000/v1/fleet: connect ECONNREFUSED',
      silent: { url: GATEWAY.url, reason: 'connect ECONNREFUSED' },
    });
    const refused = await askGateway(
      { gateway: GATEWAY },
      [{ GW_TOKEN: 'secret-token-1' }],
      recording({ status: 401, text: '{}' }).get,
    );
    expect(refused).toEqual({
      ok: false,
      name: 'lab',
      detail: 'GET http://127.0.0.1:4000/v1/fleet answered HTTP 401 (it refused GW_TOKEN)',
    });
    expect(JSON.stringify(refused)).not.toContain('secret-token-1');
    const junk = await askGateway(
      { gateway: GATEWAY },
      [],
      recording({ status: 200, text: '<html>' }).get,
    );
    expect(junk).toEqual({
      ok: false,
      name: 'lab',
      detail: 'GET http://127.0.0.1:4000/v1/fleet answered something other than JSON',
    });
  });
});
