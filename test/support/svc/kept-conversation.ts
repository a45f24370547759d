/**
 * A conversation through the built gateway, for the keepCache end-to-end tests (docs/design.md
 * D32): its first turn fills an engine slot; something stops the node (an idle stop, a swap);
 * its next turn wakes it, and the real engine reports in its own `timings.cache_n` how much of
 * the earlier prompt it took from its cache rather than evaluating it again.
 */
import { expect } from 'vitest';

import { authorized } from './gateway-fleet.ts';

/** About a thousand tokens of the tiny model's vocabulary. */
export const LONG = Array.from({ length: 30 }, () => 'hello world the model engine svc').join(' ');

interface Timings {
  readonly prompt_n: number;
  readonly cache_n: number;
}

/** One chat turn through the gateway; the engine's own timings of it. */
export async function turn(url: string, model: string, messages: readonly object[]) {
  const reply = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...authorized(), 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, max_tokens: 4, temperature: 0 }),
  });
  const body = (await reply.json()) as {
    timings?: Timings;
    choices?: { message: { content: string } }[];
  };
  expect(reply.status, JSON.stringify(body)).toBe(200);
  return { timings: body.timings, content: body.choices?.[0]?.message.content ?? '' };
}

/**
 * A conversation's first turn, a stop (`stopped` makes it happen or waits for it), then its
 * second turn: the share of the first turn's prompt the engine took from its cache after the wake.
 */
export async function resumed(url: string, model: string, stopped: () => Promise<unknown>) {
  const first = await turn(url, model, [{ role: 'user', content: LONG }]);
  const prompt = first.timings?.prompt_n ?? 0;
  expect(prompt).toBeGreaterThan(500);
  await stopped();
  const second = await turn(url, model, [
    { role: 'user', content: LONG },
    { role: 'assistant', content: first.content },
    { role: 'user', content: 'and the engine?' },
  ]);
  return (second.timings?.cache_n ?? 0) / prompt;
}

/** Each node's state as the gateway's /v1/fleet reports it. */
export async function fleetStates(url: string): Promise<Record<string, string>> {
  const reply = await fetch(`${url}/v1/fleet`, { headers: authorized() });
  const body = (await reply.json()) as { nodes: { name: string; state: string }[] };
  return Object.fromEntries(body.nodes.map(({ name, state }) => [name, state]));
}
