/**
 * The gateway as a real client sees it: the official `openai` npm package against `svc gateway`
 * in front of a real daemon running the real llama-server on the generated tiny model (started
 * with embeddings on, mean pooling, so one engine answers every endpoint). Every operation the
 * SDK offers that llama-server serves, the error paths the SDK decides retries by, and a
 * browser's CORS preflight.
 */
import { join } from 'node:path';

import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import {
  authorized,
  GATEWAY_TOKEN,
  type GatewayFleet,
  startGatewayFleet,
} from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';

/** A client that counts every HTTP request it makes (retries included). */
function client(fleet: GatewayFleet, apiKey = GATEWAY_TOKEN): { sdk: OpenAI; sent: () => number } {
  let sent = 0;
  const sdk = new OpenAI({
    apiKey,
    baseURL: `${fleet.url}/v1`,
    fetch: (input, init) => {
      sent += 1;
      return fetch(input, init);
    },
  });
  return { sdk, sent: () => sent };
}

async function tinyFleet(): Promise<GatewayFleet> {
  const dir = await tempDir();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  return startGatewayFleet([
    {
      name: 'gpu',
      svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nPRESET tiny.ini\nBASEURL 127.0.0.1:{port}\n`,
      // llama-server answers /v1/embeddings only with --embeddings, and only OpenAI-style with a
      // pooling other than none; chat and completions keep working beside it.
      files: { 'tiny.ini': '[tiny]\nembeddings = 1\npooling = mean\n' },
    },
  ]);
}

// Each test wakes a real engine; a loaded 2-core machine needs room, never a tight limit.
describe('the openai SDK through svc gateway on llama-server', { timeout: 120_000 }, () => {
  it('lists, retrieves, chats (streamed and not), completes, responds and embeds', async () => {
    const fleet = await tinyFleet();
    const { sdk } = client(fleet);

    const listed = await sdk.models.list();
    expect(listed.data.map((model) => [model.id, model.object, model.owned_by])).toEqual([
      ['tiny', 'model', 'gpu'],
    ]);
    expect(Number.isInteger(listed.data[0]?.created)).toBe(true);
    expect(listed.data[0]).toMatchObject({ svc: { state: 'asleep', nodes: ['gpu'] } });

    // The first request wakes the node; the reply says where it went and what the wake cost.
    const { data: chat, response } = await sdk.chat.completions
      .create({
        model: 'tiny',
        messages: [{ role: 'user', content: 'hello' }],
        max_completion_tokens: 4,
      })
      .withResponse();
    expect(chat.object).toBe('chat.completion');
    expect(typeof chat.choices[0]?.message.content).toBe('string');
    expect(response.headers.get('x-svc-node')).toBe('gpu');
    expect(response.headers.get('server-timing')).toMatch(
      /^gateway;dur=[\d.]+, queue;dur=\d+, wake;dur=\d+$/,
    );

    const retrieved = await sdk.models.retrieve('tiny');
    expect(retrieved).toMatchObject({ id: 'tiny', owned_by: 'gpu', svc: { state: 'running' } });

    const stream = await sdk.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'hello' }],
      max_completion_tokens: 8,
      stream: true,
    });
    let chunks = 0;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      chunks += 1;
    }
    expect(chunks).toBeGreaterThan(1);

    const completion = await sdk.completions.create({
      model: 'tiny',
      prompt: 'hello',
      max_tokens: 4,
    });
    expect(completion.object).toBe('text_completion');

    const answer = await sdk.responses.create({
      model: 'tiny',
      input: 'hello',
      max_output_tokens: 4,
    });
    expect(answer.object).toBe('response');
    expect(answer.status).toBe('completed');
    expect(typeof answer.output_text).toBe('string');

    // llama-server sends only `response.completed` when the sampled tokens decode to no text (the
    // tiny model's byte tokens can make no whole character), about one stream in sixty. Greedy
    // sampling over eight tokens always yields text, so the engine sends the whole event sequence.
    const events: string[] = [];
    for await (const event of await sdk.responses.create({
      model: 'tiny',
      input: 'hello',
      max_output_tokens: 8,
      temperature: 0,
      stream: true,
    })) {
      events.push(event.type);
    }
    expect(events[0]).toBe('response.created');
    expect(events).toContain('response.output_text.delta');
    expect(events.at(-1)).toBe('response.completed');

    const embedded = await sdk.embeddings.create({ model: 'tiny', input: ['hello', 'world'] });
    expect(embedded.data).toHaveLength(2);
    expect(embedded.data[0]?.embedding).toHaveLength(64);

    // Anthropic-style endpoints, which llama-server serves too, are routed the same way.
    const messages = await fetch(`${fleet.url}/v1/messages`, {
      method: 'POST',
      headers: { ...authorized(), 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tiny',
        max_tokens: 4,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(messages.status).toBe(200);
    expect(((await messages.json()) as { type: string }).type).toBe('message');
    const counted = await fetch(`${fleet.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { ...authorized(), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(((await counted.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);

    // An endpoint this engine was not started for answers the engine's own error, as it is.
    const rerank = await fetch(`${fleet.url}/v1/rerank`, {
      method: 'POST',
      headers: { ...authorized(), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', query: 'a', documents: ['b'] }),
    });
    expect(rerank.status).toBe(501);
    expect(rerank.headers.get('x-svc-node')).toBe('gpu');
    expect(await rerank.text()).toContain('--reranking');

    // Every request line names the model and the node; none carries a token.
    const chatLine = fleet.requestLines().find((line) => line.includes('/v1/chat/completions'));
    expect(chatLine).toMatch(/model=tiny node=gpu/);
    expect(fleet.gateway.output()).not.toContain(GATEWAY_TOKEN);
  });

  it('costs one request for an unknown model (404 model_not_found), and 401 for a wrong key', async () => {
    const fleet = await tinyFleet();
    const { sdk, sent } = client(fleet);

    const unknown = await sdk.chat.completions
      .create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    const notFound = unknown as InstanceType<typeof OpenAI.NotFoundError>;
    expect(notFound.status).toBe(404);
    expect(notFound.code).toBe('model_not_found');
    expect(notFound.message).toContain('available models: tiny');
    expect(sent()).toBe(1);
    // The gateway logs a request when its connection is done with it: wait for the line.
    const [line] = await fleet.gateway.waitFor(/api request .*path=\/v1\/chat\/completions.*/);
    expect(line).toMatch(/status=404 .*model=nope/);

    const missing = await sdk.models.retrieve('nope').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    expect(sent()).toBe(2);

    // A name typed wrong: the closest served name comes first in the message (docs/design.md D20).
    const typo = await sdk.completions
      .create({ model: 'tiyn', prompt: 'hi' })
      .catch((error: unknown) => error);
    expect(typo).toBeInstanceOf(OpenAI.NotFoundError);
    expect((typo as InstanceType<typeof OpenAI.NotFoundError>).message).toMatch(
      /^404 did you mean "tiny"\? the model "tiyn" is not available: /,
    );
    const typoModel = await sdk.models.retrieve('tiyn').catch((error: unknown) => error);
    expect((typoModel as InstanceType<typeof OpenAI.NotFoundError>).message).toMatch(
      /^404 did you mean "tiny"\? the model "tiyn" is not available; /,
    );

    const wrong = client(fleet, 'not-the-token');
    const denied = await wrong.sdk.models.list().catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((denied as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe(
      'invalid_api_key',
    );
    expect(wrong.sent()).toBe(1);

    const noModel = await sdk.embeddings
      .create({ input: 'x' } as unknown as OpenAI.EmbeddingCreateParams)
      .catch((error: unknown) => error);
    expect(noModel).toBeInstanceOf(OpenAI.BadRequestError);
    expect((noModel as InstanceType<typeof OpenAI.BadRequestError>).code).toBe(
      'invalid_request_error',
    );

    // Still one chat request at the gateway after everything else: the SDK did not retry.
    await fleet.gateway.waitFor(/api request .*path=\/v1\/embeddings.*/);
    const chats = fleet.requestLines().filter((entry) => entry.includes('/v1/chat/completions'));
    expect(chats).toHaveLength(1);
    // Nothing was woken by any of it.
    expect(fleet.daemons['gpu']?.process.stderr()).not.toContain('starting engine');
  });

  it('answers a browser preflight without the token and labels replies for the origin', async () => {
    const fleet = await tinyFleet();
    const origin = 'http://localhost:5173';
    const preflight = await fetch(`${fleet.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, x-stainless-os',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')?.split(', ')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'x-stainless-os']),
    );
    expect(Number(preflight.headers.get('access-control-max-age'))).toBeGreaterThan(0);

    const listed = await fetch(`${fleet.url}/v1/models`, { headers: { ...authorized(), origin } });
    expect(listed.headers.get('access-control-allow-origin')).toBe('*');
    const refused = await fetch(`${fleet.url}/v1/models`, { headers: { origin } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });
});
