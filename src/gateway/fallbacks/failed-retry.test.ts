/** docs/design.md D30 `failed`: when a request is sent once more to its model's fallback. */
import type { ServerResponse } from 'node:http';

import { describe, expect, it } from 'vitest';

import type { FallbackReason, FleetFallback } from '../../core/fleet/file/fleet-file.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { type FailedRetryRequest, relayWithFailover } from './failed-retry.ts';

const ALL: FleetFallback = { to: 'hosted', when: ['waking', 'queueFull', 'failed'] };

/** Runs a request whose relays answer in turn from `outcomes` (an error is thrown). */
async function run(
  outcomes: (GatewayError | 'ok' | 'sent')[],
  options: {
    fallback?: FleetFallback | undefined;
    node?: string;
    mayUseUpstreams?: boolean;
    resendable?: boolean;
  } = {},
) {
  const outgoing = { headersSent: false, destroyed: false };
  const relays: [string, FallbackReason | undefined, boolean][] = [];
  const counted: string[] = [];
  const request: FailedRetryRequest = {
    model: 'qwen',
    node: options.node ?? 'gpu',
    mayUseUpstreams: options.mayUseUpstreams ?? true,
    outgoing: outgoing as unknown as ServerResponse,
  };
  const fallback = 'fallback' in options ? options.fallback : ALL;
  const outcome = await relayWithFailover(
    {
      ...(fallback === undefined ? {} : { fallbacks: new Map([['qwen', fallback]]) }),
      fellBack: (model, reason) => counted.push(`${model} ${reason}`),
      retried: (from, to) => counted.push(`moved ${from} to ${to}`),
    },
    request,
    Object.assign(
      (node: string, why: FallbackReason | undefined, hold: boolean) => {
        relays.push([node, why, hold]);
        const next = outcomes.shift();
        if (next === 'sent') {
          outgoing.headersSent = true;
          return Promise.reject(new GatewayError(502, 'broke off'));
        }
        return next instanceof GatewayError ? Promise.reject(next) : Promise.resolve();
      },
      { resendable: () => options.resendable ?? true },
    ),
  ).then(
    () => 'ok',
    (error: unknown) => (error as GatewayError).status,
  );
  return { outcome, relays, counted };
}

const failed = (): GatewayError => new GatewayError(502, 'the engine on gpu failed to answer');

describe('relayWithFailover', () => {
  it('sends a request whose node failed before the reply once to the fallback, counted', async () => {
    const { outcome, relays, counted } = await run([failed(), 'ok']);
    expect(outcome).toBe('ok');
    expect(relays).toEqual([
      ['gpu', undefined, true],
      ['hosted', 'failed', false],
    ]);
    // The scheduler's count moves with it before the fallback's reply (core's moves.ts).
    expect(counted).toEqual(['qwen failed', 'moved gpu to hosted']);
  });

  it('answers with the fallback failure when the retry fails too: never a second retry', async () => {
    const { outcome, relays } = await run([failed(), failed(), 'ok']);
    expect(outcome).toBe(502);
    expect(relays).toHaveLength(2);
  });

  it('never retries after the first byte reached the caller', async () => {
    const { outcome, relays, counted } = await run(['sent', 'ok']);
    expect(outcome).toBe(502);
    expect(relays).toHaveLength(1);
    expect(counted).toEqual([]);
  });

  it('answers a timeout or a cut as it is', async () => {
    for (const status of [503, 504]) {
      const { outcome, relays } = await run([new GatewayError(status, 'no'), 'ok']);
      expect(outcome).toBe(status);
      expect(relays).toHaveLength(1);
    }
  });

  it('neither holds a 5xx nor retries without a failed fallback, for the fallback, or off', async () => {
    const cases = [
      { fallback: undefined },
      { fallback: { to: 'hosted', when: ['waking'] } as FleetFallback },
      { node: 'hosted' },
      { mayUseUpstreams: false },
    ];
    for (const options of cases) {
      const { outcome, relays } = await run([failed(), 'ok'], options);
      expect(outcome).toBe(502);
      expect(relays.map(([, , hold]) => hold)).toEqual([false]);
    }
  });

  it('keeps the reason a fallback was chosen for on its first relay', async () => {
    const outgoing = { headersSent: false, destroyed: false } as unknown as ServerResponse;
    const seen: (FallbackReason | undefined)[] = [];
    await relayWithFailover(
      { fallbacks: new Map([['qwen', ALL]]), fellBack: () => undefined },
      { model: 'qwen', node: 'hosted', fallback: 'waking', mayUseUpstreams: true, outgoing },
      (_node, why) => {
        seen.push(why);
        return Promise.resolve();
      },
    );
    expect(seen).toEqual(['waking']);
  });

  it('counts no fallback when the body cannot be sent again: the retry refuses itself', async () => {
    const cannot = new GatewayError(502, 'the form cannot be sent again to hosted');
    const { outcome, relays, counted } = await run([failed(), cannot], { resendable: false });
    expect(outcome).toBe(502);
    expect(relays.map(([node]) => node)).toEqual(['gpu', 'hosted']);
    expect(counted).toEqual([]);
  });
});
