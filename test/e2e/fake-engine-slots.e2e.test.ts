/**
 * The slot-limited fake engine (test/fixtures/fake-engine.mjs `slots:N,hold:MS`) the scheduler's
 * end-to-end tests and `BENCH_ONLY=scheduler` stand on, run by one real daemon behind the built
 * gateway (test/support/svc/slot-fleet.ts) and asked directly (the gateway would hold the third in its
 * own queue): with 2 slots, a third concurrent request waits inside the engine until a slot frees
 * and so finishes last, and the engine reports its slots the
 * way llama-server does (`/props`, `/slots`, the `/metrics` gauges). Assertions are on order and
 * counts, never on wall-clock time.
 */
import { describe, expect, it } from 'vitest';

import { readSse } from '../support/http/sse.ts';
import { servedBy, startSlotFleet } from '../support/svc/slot-fleet.ts';
import { eventually } from '../support/time/eventually.ts';

const HOLD_MS = 3_000;

interface FakeReply {
  readonly status: number;
  readonly port: number | undefined;
  readonly body: { system_fingerprint?: string; fake_engine?: { slot: number; deferred: boolean } };
}

/** The engine's gauges as llama-server names them, from its /metrics text. */
function gauges(text: string): { processing: number; deferred: number } {
  const value = (name: string): number =>
    Number(new RegExp(`^llamacpp:${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { processing: value('requests_processing'), deferred: value('requests_deferred') };
}

describe('the slot-limited fake engine', () => {
  it('serves at most N at once, queues the rest inside the engine, and says which engine served', async () => {
    const fleet = await startSlotFleet({ nodes: 1, slots: 2, holdMs: HOLD_MS });
    await fleet.startAll();
    const daemon = fleet.fleet.daemons['n1'];
    const status = (await daemon?.call('GET', '/v1/status'))?.json ?? {};
    const enginePort = (status['engine'] as { port: number }).port;
    const engine = `http://127.0.0.1:${enginePort}`;

    const props = (await (await fetch(`${engine}/props`)).json()) as { total_slots: number };
    expect(props.total_slots).toBe(2);

    const finished: FakeReply[] = [];
    const ask = async (): Promise<void> => {
      const reply = await fetch(`${engine}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake', messages: [{ role: 'user', content: 'hi' }] }),
      });
      finished.push({
        status: reply.status,
        port: servedBy(reply),
        body: (await reply.json()) as FakeReply['body'],
      });
    };
    const all = Promise.all([ask(), ask(), ask()]);

    // While all three are in: two in slots, one deferred, as llama-server's gauges say it.
    const during = await eventually(
      async () => gauges(await (await fetch(`${engine}/metrics`)).text()),
      (seen) => seen.processing === 2 && seen.deferred === 1,
      'two requests processing and one deferred',
    );
    expect(during).toEqual({ processing: 2, deferred: 1 });
    const slots = (await (await fetch(`${engine}/slots`)).json()) as { is_processing: boolean }[];
    expect(slots.map((slot) => slot.is_processing)).toEqual([true, true]);
    await all;

    expect(finished.map((reply) => reply.status)).toEqual([200, 200, 200]);
    expect(finished.map((reply) => reply.port)).toEqual([enginePort, enginePort, enginePort]);
    expect(finished.map((reply) => reply.body.system_fingerprint)).toEqual(
      Array.from({ length: 3 }, () => `fake-engine-port:${enginePort}`),
    );
    // The one that waited for a slot is the last to finish: it started when another ended.
    expect(finished.map((reply) => reply.body.fake_engine?.deferred)).toEqual([false, false, true]);
    expect(gauges(await (await fetch(`${engine}/metrics`)).text())).toEqual({
      processing: 0,
      deferred: 0,
    });

    // A stream holds its slot too, and each chunk names the engine.
    const streamed = await fetch(`${fleet.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fleet.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake', stream: true, messages: [] }),
    });
    expect(servedBy(streamed)).toBe(enginePort);
    const { events } = await readSse(streamed.body as ReadableStream<Uint8Array>);
    expect(events.map((event) => event.data.includes(`fake-engine-port:${enginePort}`))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(events.at(-1)?.data).toBe('[DONE]');

    await fleet.stop();
  });
});
