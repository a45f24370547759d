/**
 * What `svc code` handed the recording fake opencode (test/fixtures/agents) points at a gateway
 * that answers: the provider's base URL is the gateway's, the chosen model is the one asked for,
 * and a chat completion sent there for that model is answered by its engine.
 */
import { expect } from 'vitest';

import { chat } from '../http/chat.ts';
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
  // The provider's base URL ends in /v1, where the agent sends its chat completions.
  const reply = await chat(baseUrl.replace(/\/v1$/, ''), { model });
  expect(reply.status, await reply.clone().text()).toBe(200);
  expect(((await reply.json()) as { model?: string }).model).toBe(model);
}
