/**
 * The gateway's front door with fake engines, for what a real one cannot show on cue: an engine
 * that takes 8 s to become ready (wake progress), one that crashes while loading, one that holds
 * its reply (--reply-timeout), and one whose stream outruns its reader (the drain wait). Also
 * HEAD, CORS restricted by the fleet file, 100-continue with a wrong token, and the access log.
 */
import { request as httpRequest } from 'node:http';

import { describe, expect, it } from 'vitest';

import { chat, chatBody } from '../support/http/chat.ts';
import { authorized, type GatewayFleet, startGatewayFleet } from '../support/svc/gateway-fleet.ts';

const body = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify(chatBody({ model: 'm', ...extra }));

async function oneNode(
  fake: string,
  options: Parameters<typeof startGatewayFleet>[1] = {},
): Promise<GatewayFleet> {
  return startGatewayFleet(
    [
      {
        name: 'box',
        svcfile: 'PROVIDER llamacpp\nMODEL org/m\nALIAS m\nBASEURL 127.0.0.1:{port}\n',
        fake,
      },
    ],
    options,
  );
}

function post(fleet: GatewayFleet, text: string, signal?: AbortSignal): Promise<Response> {
  return chat(fleet.url, text, { headers: authorized(), signal });
}

/** The whole text of a streamed reply, read as it arrives. */
async function readAll(reply: Response): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of reply.body as ReadableStream<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
  }
  return text;
}

describe('wake progress for streamed requests', { timeout: 120_000 }, () => {
  it('sends headers and ": waking" comments while an engine takes 8 s to load, then its stream', async () => {
    const fleet = await oneNode('slow-health:8000');
    const reply = await post(fleet, body({ stream: true }));
    expect(reply.status, await reply.clone().text()).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/event-stream');
    expect(reply.headers.get('x-svc-node')).toBe('box');
    const text = await readAll(reply);
    const comments = text.match(/^: waking box \(\d+ s\)$/gm) ?? [];
    // 8 s of loading: comments at 2 s and 6 s at least (more on a slow machine).
    expect(comments.length).toBeGreaterThanOrEqual(2);
    const firstData = text.indexOf('data: ');
    expect(text.lastIndexOf(': waking')).toBeLessThan(firstData);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    // Logged once the connection is done with the request: wait for the line.
    const [line] = await fleet.gateway.waitFor(/api request .*path=\/v1\/chat\/completions.*/);
    expect(line).toMatch(/status=200 .*model=m node=box/);

    // Non-streamed requests to a ready engine carry no progress: the engine's reply as it is.
    const plain = await post(fleet, body());
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(plain.headers.get('server-timing')).toMatch(/^gateway;dur=[\d.]+$/);
  });

  it('ends the stream with one OpenAI-shaped error event when the engine dies while loading', async () => {
    const fleet = await oneNode('slow-health:60000,crash-after:4000');
    const reply = await post(fleet, body({ stream: true }));
    expect(reply.status).toBe(200);
    const text = await readAll(reply);
    // The first comment is due 2 s into the wait; a loaded machine's timers may run late.
    expect(text).toMatch(/^: waking box \(\d+ s\)$/m);
    const events = text.split('\n').filter((line) => line.startsWith('data: '));
    expect(events).toHaveLength(1);
    const error = JSON.parse(events[0]?.slice('data: '.length) ?? '{}') as {
      error: { message: string; type: string; code: string };
    };
    expect(error.error).toMatchObject({ type: 'server_error', code: 'wake_failed' });
    expect(error.error.message).toContain('node "box" crashed while starting m');
  });
});

describe('limits and hygiene', { timeout: 90_000 }, () => {
  it('gives a non-streamed reply --reply-timeout, then 504 naming the node', async () => {
    const fleet = await oneNode('slow-reply:20000', { gatewayArgs: ['--reply-timeout', '1s'] });
    const reply = await post(fleet, body());
    expect(reply.status).toBe(504);
    expect(await reply.json()).toEqual({
      error: {
        message: 'the engine on box did not answer within 1s (--reply-timeout)',
        type: 'server_error',
        code: 'reply_timeout',
      },
    });
  });

  it('leaks no listener while a reader cannot keep up with a long stream', async () => {
    // 40 chunks of 256 KiB: every write outruns the socket, so each one waits for 'drain'.
    const fleet = await oneNode('chunks:40,chunk-bytes:262144');
    const text = await readAll(await post(fleet, body({ stream: true })));
    expect(text.match(/^data: /gm)).toHaveLength(41);
    expect(fleet.gateway.stderr()).not.toContain('MaxListenersExceededWarning');
  });

  it('logs a stream the caller aborted, with the model and the node', async () => {
    const fleet = await oneNode('chunks:20');
    const abort = new AbortController();
    const reply = await post(fleet, body({ stream: true }), abort.signal);
    await (reply.body as ReadableStream<Uint8Array>).getReader().read();
    abort.abort();
    const [line] = await fleet.gateway.waitFor(/api request .*outcome=aborted.*/);
    expect(line).toMatch(/path=\/v1\/chat\/completions status=200 .*model=m node=box/);
  });

  it('answers a wrong token with Expect: 100-continue before the body is sent', async () => {
    const fleet = await oneNode('');
    const outcome = await new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
      const text = body();
      let continued = false;
      const request = httpRequest(`${fleet.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          ...authorized('wrong'),
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          expect: '100-continue',
        },
      });
      request.on('continue', () => {
        continued = true;
        request.end(text);
      });
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, continued }));
        request.destroy();
      });
      request.on('error', reject);
      request.flushHeaders();
    });
    expect(outcome).toEqual({ status: 401, continued: false });
  });
});

describe('HEAD, /v1/models/{id} and CORS from the fleet file', () => {
  it('answers HEAD like GET without a body, and keeps origins to the fleet file list', async () => {
    const fleet = await oneNode('', { top: ['gateway:', '  cors: [https://app.example]'] });
    for (const path of ['/health', '/v1/models', '/v1/fleet', '/v1/models/m']) {
      const head = await fetch(`${fleet.url}${path}`, { method: 'HEAD', headers: authorized() });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
      expect(await head.text()).toBe('');
    }
    const entry = await fetch(`${fleet.url}/v1/models/m`, { headers: authorized() });
    expect(await entry.json()).toMatchObject({ id: 'm', object: 'model', owned_by: 'box' });
    const missing = await fetch(`${fleet.url}/v1/models/other`, { headers: authorized() });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(
      'model_not_found',
    );

    const allowed = await fetch(`${fleet.url}/health`, {
      headers: { ...authorized(), origin: 'https://app.example' },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const other = await fetch(`${fleet.url}/health`, {
      headers: { ...authorized(), origin: 'https://elsewhere.example' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${fleet.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});
