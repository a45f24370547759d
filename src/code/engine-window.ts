/**
 * The window a running llama-server really gives one request: `GET /props` answers
 * `default_generation_settings.n_ctx`, the context of one slot (`-c 16384 -np 2` answers 8192;
 * checked against Debian's build b11669). It beats what the Svcfile or the engine flags say,
 * since the engine may have been started with other flags or cut the context to the model's own.
 * The client is injected; any failure means "not known", never an error: sizing is a help, and
 * the agent still starts.
 */
import { request } from 'undici';

import type { AgentKey, ModelLimits } from './agent-target.ts';

/** Reads one engine URL as JSON with the engine's key; undefined when it does not answer so. */
export type PropsClient = (url: string, key: AgentKey | undefined) => Promise<unknown>;

/** How long `/props` may take: the engine answers from memory, a stalled one is skipped. */
const PROPS_TIMEOUT_MS = 5_000;

/** One slot's context from a `/props` reply, when it holds a positive whole number. */
export function slotContextOf(props: unknown): number | undefined {
  const settings = (props as { default_generation_settings?: { n_ctx?: unknown } } | null)
    ?.default_generation_settings;
  const context = settings?.n_ctx;
  return typeof context === 'number' && Number.isInteger(context) && context > 0
    ? context
    : undefined;
}

/** `/props` beside an OpenAI base URL (`http://h:p/v1` → `http://h:p/props`). */
export function propsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/props`;
}

/** The running engine's window as limits, or undefined when it does not say. */
export async function runningWindow(
  baseUrl: string,
  key: AgentKey | undefined,
  client: PropsClient,
): Promise<ModelLimits | undefined> {
  let props: unknown;
  try {
    props = await client(propsUrl(baseUrl), key);
  } catch {
    return undefined;
  }
  const context = slotContextOf(props);
  return context === undefined
    ? undefined
    : { context, contextFrom: "n_ctx per slot, from the running engine's GET /props" };
}

/** The real client: one GET with the engine's key, JSON or nothing. */
export const httpProps: PropsClient = async (url, key) => {
  const reply = await request(url, {
    signal: AbortSignal.timeout(PROPS_TIMEOUT_MS),
    headers: key === undefined ? {} : { authorization: `Bearer ${key.value}` },
  });
  const text = await reply.body.text();
  return reply.statusCode === 200 ? (JSON.parse(text) as unknown) : undefined;
};
