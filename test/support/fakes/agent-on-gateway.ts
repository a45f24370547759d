/**
 * What `svc code` handed the recording fake opencode (test/fixtures/agents) points at a gateway
 * that answers: the provider's base URL is the gateway's, the chosen model is the one asked for,
 * and a chat completion sent there for that model is answered by its engine.
 */
import { expect } from 'vitest';

import { opencodeConfigOf, readAgentRecord } from './fake-agent.ts';

export async function expectOpencodeOnGateway(
  recordPath: string,
  baseUrl: string,
  model: string,
): Promise<void> {
  const record = await readAgentRecord(recordPath);
  expect(record.name).toBe('opencode');
  const config = opencodeConfigOf(record);
  const [id, provider] = Object.entries(config.provider)[0] ?? [];
  expect(provider?.options.baseURL).toBe(baseUrl);
  expect(config.model).toBe(`${id ?? ''}/${model}`);
  const reply = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
  });
  expect(reply.status, await reply.clone().text()).toBe(200);
  expect(((await reply.json()) as { model?: string }).model).toBe(model);
}
