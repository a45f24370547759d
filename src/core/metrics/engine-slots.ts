/**
 * The engine's own count of request slots (docs/design.md D25): llama-server answers `GET /props`
 * with JSON whose `total_slots` is the number of requests it decodes at once, whatever `--parallel`
 * said (its `-1` lets the engine choose). Asked once the engine is ready, once per engine start.
 */
import { request } from 'undici';

/** A reply larger than this is not the small JSON object expected, and is not read further. */
const MAX_PROPS_BYTES = 1024 * 1024;

/** `total_slots` from a /props reply body, when it is a whole number ≥ 1. Pure. */
export function totalSlotsOf(body: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) {
    return undefined;
  }
  const slots = (parsed as { total_slots?: unknown }).total_slots;
  return typeof slots === 'number' && Number.isSafeInteger(slots) && slots >= 1 ? slots : undefined;
}

/** Asks the engine at `baseUrl` for its slots; undefined when it does not tell (any failure). */
export async function readEngineSlots(
  path: string,
  baseUrl: string,
  key: string | undefined,
  timeoutMs: number,
): Promise<number | undefined> {
  try {
    const reply = await request(`${baseUrl}${path}`, {
      method: 'GET',
      signal: AbortSignal.timeout(timeoutMs),
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    });
    if (reply.statusCode !== 200) {
      await reply.body.dump();
      return undefined;
    }
    let text = '';
    for await (const chunk of reply.body) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length > MAX_PROPS_BYTES) {
        reply.body.destroy();
        return undefined;
      }
    }
    return totalSlotsOf(text);
  } catch {
    return undefined;
  }
}
