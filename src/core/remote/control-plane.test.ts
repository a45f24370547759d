import { describe, expect, it } from 'vitest';

import { ControlPlane, DROPPED_RETRY_MS, RemoteCallError } from './control-plane.ts';
import type { Remote } from './registry.ts';
import { type CallInput, type CallReply, DroppedConnectionError } from './transport.ts';

const remote: Remote = {
  name: 'cloud',
  environment: 'prod-env',
  region: 'us-east-1',
  urls: {
    start_url: 'https://start.example/',
    stop_url: 'https://stop.example/',
    stats_url: 'https://stats.example/',
  },
};

/** A control plane whose replies are scripted, on a fake clock that sleeping advances. */
function scripted(replies: (CallReply | Error)[]) {
  let clock = 1_000_000;
  const calls: CallInput[] = [];
  const sleeps: number[] = [];
  const plane = new ControlPlane(remote, {
    transport: (input) => {
      calls.push(input);
      const next = replies.shift();
      if (next === undefined) {
        return Promise.reject(new Error('no more scripted replies'));
      }
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    now: () => clock,
    sleep: (ms) => {
      sleeps.push(ms);
      clock += ms;
      return Promise.resolve();
    },
  });
  return { plane, calls, sleeps, now: () => clock };
}

const booting = (after: unknown): CallReply => ({
  status: 503,
  json: { state: 'pending', retry_after_seconds: after },
});
const ready: CallReply = {
  status: 200,
  json: { state: 'ready', base_url: 'http://10.0.0.7:8000/v1', api_key: 'SECRET-KEY' },
};

describe('ControlPlane.start (a blocking boot)', () => {
  it('waits retry_after_seconds on a 503 (at least 1 s) and asks again until ready', async () => {
    const { plane, calls, sleeps } = scripted([booting(3), booting(0), booting('x'), ready]);
    const status = await plane.start();
    expect(status.state).toBe('running');
    expect(status.engine).toEqual({ host: '10.0.0.7', port: 8000, requiresKey: true });
    expect(JSON.stringify(status)).not.toContain('SECRET-KEY');
    expect(sleeps).toEqual([3000, 1000, 1000]);
    expect(calls.map((call) => `${call.method} ${call.url.href}`)).toEqual(
      Array(4).fill('POST https://start.example/?env=prod-env'),
    );
  });

  it('retries a dropped connection after 5 s', async () => {
    const { plane, sleeps } = scripted([
      new DroppedConnectionError(new Error('socket hang up')),
      ready,
    ]);
    await plane.start();
    expect(sleeps).toEqual([DROPPED_RETRY_MS]);
  });

  it('gives up at the deadline, saying it timed out', async () => {
    const { plane, now } = scripted(Array.from({ length: 10 }, () => booting(60)));
    const error = await plane
      .start({ deadline: now() + 90_000 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RemoteCallError);
    expect((error as RemoteCallError).timedOut).toBe(true);
  });

  it('fails on any other status, naming the environment, the status and the state', async () => {
    const { plane } = scripted([
      { status: 500, json: { state: 'failed', message: 'no capacity' } },
    ]);
    await expect(plane.start()).rejects.toThrow(
      'start of remote environment "cloud" failed (HTTP 500, state "failed"): no capacity',
    );
  });

  it('explains a 403: credentials or the lambda:InvokeFunctionUrl permission', async () => {
    const { plane } = scripted([{ status: 403, json: { message: 'Forbidden' } }]);
    await expect(plane.start()).rejects.toThrow(
      /HTTP 403.*AWS credentials.*lambda:InvokeFunctionUrl/,
    );
  });
});

describe('ControlPlane calls', () => {
  it('signs nothing itself but sends each call with ?env= and its own query', async () => {
    const { plane, calls } = scripted([
      { status: 200, json: { state: 'stopped' } },
      { status: 200, json: {} },
      { status: 200, json: { state: 'stopped', runner: 'llamacpp', modelId: 'org/m' } },
    ]);
    await plane.status();
    await plane.pause(true);
    expect(await plane.stats()).toEqual({ state: 'stopped', runner: 'llamacpp', modelId: 'org/m' });
    expect(calls.map((call) => `${call.method} ${call.url.href}`)).toEqual([
      'GET https://start.example/?env=prod-env',
      'POST https://stop.example/?env=prod-env&action=pause&force=true',
      'GET https://stats.example/?env=prod-env',
    ]);
  });

  it('needs an update_url for keep, and sends set-keep with an RFC 3339 UTC time', async () => {
    const { plane } = scripted([]);
    await expect(plane.keep(new Date(0))).rejects.toThrow('no update_url configured');
    const withUpdate = new ControlPlane(
      { ...remote, urls: { ...remote.urls, update_url: 'https://update.example/' } },
      {
        transport: (input) => {
          expect(input.url.href).toBe(
            'https://update.example/?env=prod-env&cmd=set-keep&retainUntil=2030-01-02T03%3A04%3A05Z',
          );
          return Promise.resolve({ status: 200, json: {} });
        },
        now: () => 0,
        sleep: () => Promise.resolve(),
      },
    );
    await withUpdate.keep(new Date('2030-01-02T03:04:05.678Z'));
  });

  it('refuses a reply without a state', async () => {
    const { plane } = scripted([{ status: 200, json: { nope: 1 } }]);
    await expect(plane.status()).rejects.toThrow('answered something unexpected');
  });

  it('names a missing stats_url', async () => {
    const bare = new ControlPlane(
      { ...remote, urls: { start_url: 'https://s/', stop_url: 'https://t/' } },
      {
        transport: () => Promise.reject(new Error('unused')),
        now: () => 0,
        sleep: () => Promise.resolve(),
      },
    );
    await expect(bare.stats()).rejects.toThrow('has no stats_url configured');
  });
});
