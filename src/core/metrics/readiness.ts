/**
 * Whether a running engine answers its own health check (spec §2.1 `ready`). Conventions per
 * engine (engine-table.ts `health`): llama-server 503 while loading and 200 when ready; vLLM
 * refuses connections while loading, then 200; MTPLX answers 200 with `"ok": true`, and wants the
 * key when one is set. An engine with no known convention has no readiness (undefined).
 */
import { request } from 'undici';

import type { EngineDefinition } from '../engines/engine-table.ts';

export async function checkReadiness(
  health: EngineDefinition['health'],
  baseUrl: string,
  key: string | undefined,
  timeoutMs = 5_000,
): Promise<'ready' | 'not-ready' | undefined> {
  if (health === undefined) {
    return undefined;
  }
  try {
    const reply = await request(`${baseUrl}${health.path}`, {
      method: 'GET',
      signal: AbortSignal.timeout(timeoutMs),
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    });
    const body = await reply.body.text();
    if (reply.statusCode !== 200) {
      return 'not-ready';
    }
    if (health.readyWhen === '200-json-ok') {
      try {
        return (JSON.parse(body) as { ok?: unknown }).ok === true ? 'ready' : 'not-ready';
      } catch {
        return 'not-ready';
      }
    }
    return 'ready';
  } catch {
    return 'not-ready';
  }
}
