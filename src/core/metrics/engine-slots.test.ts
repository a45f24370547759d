/** docs/design.md D25 `slots`: llama-server's own count, from its /props reply. */
import { describe, expect, it } from 'vitest';

import { serveLoopback } from '../../../test/support/http/http-server.ts';
import { ENGINES } from '../engines/engine-table.ts';
import { readEngineSlots, totalSlotsOf } from './engine-slots.ts';

describe('totalSlotsOf', () => {
  it('reads total_slots from a /props reply', () => {
    const body = JSON.stringify({
      default_generation_settings: { n_ctx: 4096 },
      total_slots: 2,
      model_path: '/m/tiny.gguf',
    });
    expect(totalSlotsOf(body)).toBe(2);
  });

  it.each([
    ['no field', '{"model_path":"m"}'],
    ['zero', '{"total_slots":0}'],
    ['a fraction', '{"total_slots":1.5}'],
    ['a string', '{"total_slots":"2"}'],
    ['not JSON', '<html>'],
    ['null', 'null'],
    ['an array', '[2]'],
  ])('is unknown for %s', (_case, body) => {
    expect(totalSlotsOf(body)).toBeUndefined();
  });
});

describe('readEngineSlots', () => {
  it("asks the engine's props path with the engine key", async () => {
    const seen: (string | undefined)[] = [];
    const base = await serveLoopback((request, reply) => {
      seen.push(`${request.url ?? ''} ${request.headers.authorization ?? ''}`);
      reply.end('{"total_slots":3}');
    });
    const path = ENGINES.llamacpp.propsPath ?? '';
    expect(await readEngineSlots(path, base, 'k', 1_000)).toBe(3);
    expect(seen).toEqual(['/props Bearer k']);
  });

  it('is unknown when the engine refuses or is not there', async () => {
    const base = await serveLoopback((_request, reply) => {
      reply.statusCode = 401;
      reply.end('{"total_slots":3}');
    });
    expect(await readEngineSlots('/props', base, undefined, 1_000)).toBeUndefined();
    expect(await readEngineSlots('/props', 'http://127.0.0.1:1', undefined, 1_000)).toBeUndefined();
  });
});
