/**
 * `svc gateway` and `svc fleet` end to end (spec §4.2, §7): the built CLI, two real daemons
 * (separate config dirs) running the real llama-server on the generated model, and fake engines
 * where a test must see what reached the engine or control its timing.
 */
import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { chatBody } from '../support/http/chat.ts';
import { readSse } from '../support/http/sse.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import type { TestProcess } from '../support/processes/processes.ts';
import { FAKE_BIN_DIR, freePort, startTestDaemon, type TestDaemon } from '../support/svc/daemon.ts';
import {
  ENGINE_KEY,
  GATEWAY_TOKEN,
  NODE_TOKEN,
  startTestGateway,
} from '../support/svc/gateway-fleet.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

interface NodeSpec {
  name: string;
  svcfile: string;
  /** Extra fleet-file lines for this node (indented under it). */
  extra?: string[];
  fake?: string;
  loopbackEngine?: boolean;
}

interface TestFleet {
  dir: string;
  daemons: Record<string, TestDaemon>;
  gateway: TestProcess;
  url: string;
  call(path: string, body?: unknown, token?: string | null): Promise<Response>;
}

async function fleet(
  nodes: NodeSpec[],
  options: { top?: string[]; gatewayArgs?: string[] } = {},
): Promise<TestFleet> {
  const dir = await tempDir();
  const daemons: Record<string, TestDaemon> = {};
  const lines = [...(options.top ?? []), 'nodes:'];
  for (const node of nodes) {
    await writeFile(join(dir, `${node.name}.svc`), node.svcfile);
    daemons[node.name] = await startTestDaemon({
      configDir: join(dir, `config-${node.name}`),
      token: NODE_TOKEN,
      // The default sampler interval: readiness is polled at start-up speed on its own.
      ...(node.fake === undefined ? {} : { path: [FAKE_BIN_DIR], env: { FAKE_ENGINE: node.fake } }),
    });
    const port = new URL(daemons[node.name]?.url ?? '').port;
    lines.push(
      `  - name: ${node.name}`,
      '    host: 127.0.0.1',
      `    port: ${port}`,
      '    tokenEnv: NODE_TOKEN',
      '    engineTokenEnv: ENGINE_KEY',
      `    file: ${node.name}.svc`,
      ...(node.loopbackEngine === true ? [] : ['    engine: {host: 127.0.0.1}']),
      ...(node.extra ?? []).map((line) => `    ${line}`),
    );
  }
  await writeFile(join(dir, 'fleet.yaml'), `${lines.join('\n')}\n`);
  // Node tokens come from the .env beside the fleet file; the gateway token from the environment.
  await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);
  const { gateway, url } = await startTestGateway({
    cwd: dir,
    configDir: join(dir, 'config-gateway'),
    args: options.gatewayArgs ?? [],
    logLevel: 'info',
  });
  return {
    dir,
    daemons,
    gateway,
    url,
    call: (path, body, token = GATEWAY_TOKEN) =>
      fetch(`${url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
  };
}

const chat = (model: string, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  chatBody({ model, ...extra });

async function errorOf(reply: Response): Promise<string> {
  // docs/design.md D19: every gateway-made error is {"error": {"message", "type", "code"}}.
  const body = (await reply.json()) as { error: { message: string; type: string; code: string } };
  expect(typeof body.error.type).toBe('string');
  expect(typeof body.error.code).toBe('string');
  return body.error.message;
}

function starts(daemon: TestDaemon | undefined): number {
  return (daemon?.process.stderr().match(/INFO {2}starting engine/g) ?? []).length;
}

describe('svc gateway with real llama-server nodes', () => {
  it('wakes a node on demand, routes by model, streams, and lists models and the fleet', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const [portA, portB] = [await freePort(), await freePort()];
    const test = await fleet([
      {
        name: 'a',
        svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-a\nBASEURL 127.0.0.1:${portA}\n`,
      },
      {
        name: 'b',
        svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-b\nBASEURL 127.0.0.1:${portB}\n`,
      },
    ]);

    const listed = (await (await test.call('/v1/models')).json()) as {
      object: string;
      data: { id: string }[];
    };
    expect(listed).toMatchObject({
      object: 'list',
      data: [
        { id: 'tiny-a', object: 'model', owned_by: 'a', svc: { state: 'asleep', nodes: ['a'] } },
        { id: 'tiny-b', object: 'model', owned_by: 'b', svc: { state: 'asleep', nodes: ['b'] } },
      ],
    });

    // Five concurrent requests for a stopped node's model: one start, five answers.
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => test.call('/v1/chat/completions', chat('tiny-b'))),
    );
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
    for (const reply of replies) {
      expect(((await reply.json()) as { object: string }).object).toBe('chat.completion');
    }
    expect(starts(test.daemons['b'])).toBe(1);
    expect(starts(test.daemons['a'])).toBe(0);

    // Routed to the node serving the model; the completions path too.
    const completion = await test.call('/v1/completions', {
      model: 'tiny-b',
      prompt: 'hello',
      max_tokens: 3,
    });
    expect(completion.status).toBe(200);
    expect(((await completion.json()) as { object: string }).object).toBe('text_completion');

    // Streaming: chunks reach the client before the reply ends.
    const streamed = await test.call(
      '/v1/chat/completions',
      chat('tiny-b', { stream: true, max_tokens: 16 }),
    );
    expect(streamed.headers.get('content-type')).toMatch(/text\/event-stream/);
    // The tiny model writes all its chunks within a millisecond, so they may arrive in one read
    // here; the fake-engine test below proves each chunk passes through before the next exists.
    const { events } = await readSse(streamed.body as ReadableStream<Uint8Array>);
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(events.length).toBeGreaterThan(3);
    // The same pooled connection is safe after a stream (llama-server closes it): no 502 here.
    for (let round = 0; round < 3; round += 1) {
      expect((await test.call('/v1/chat/completions', chat('tiny-b'))).status).toBe(200);
      const again = await test.call('/v1/chat/completions', chat('tiny-b', { stream: true }));
      expect(again.status).toBe(200);
      await again.text();
    }
    // A 1 MB body: its model is found by scanning, not parsing, and the engine receives it
    // whole (a cut body would fail llama-server's own parse). A malformed one is still refused.
    const megabyte = await test.call(
      '/v1/chat/completions',
      chat('tiny-b', { user: 'lorem ipsum \\"dolor\\" '.repeat(50_000) }),
    );
    expect(megabyte.status, await megabyte.clone().text()).toBe(200);
    expect(megabyte.headers.get('x-svc-node')).toBe('b');
    const unclosed = await fetch(`${test.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' },
      body: `{"model":"tiny-b","user":"${'x'.repeat(100_000)}"`,
    });
    expect(unclosed.status).toBe(400);
    expect(await errorOf(unclosed)).toContain('not a JSON body');

    // The background refresh catches up with the node as it is now.
    const topology = await eventually(
      async () =>
        (await (await test.call('/v1/fleet')).json()) as {
          wake: boolean;
          nodes: Record<string, unknown>[];
        },
      (fleet) => fleet.nodes[0]?.['state'] === 'idle' && fleet.nodes[1]?.['state'] === 'running',
      'a reported idle and b running',
    );
    // spec §4.2 rule 6: the file declares no wake, prefer or concurrency, so none ride along.
    expect(topology).not.toHaveProperty('wake');
    expect(topology).not.toHaveProperty('prefer');
    expect(topology.nodes[0]).toEqual({
      name: 'a',
      kind: 'daemon',
      state: 'idle',
      wakeableModel: 'tiny-a',
      // docs/design.md D25: this gateway's own count, on every node.
      inFlight: 0,
    });
    expect(topology.nodes[1]).toMatchObject({
      name: 'b',
      kind: 'daemon',
      state: 'running',
      servedName: 'tiny-b',
      model,
      ready: 'ready',
    });
    expect(topology.nodes[1]).not.toHaveProperty('wakeableModel');

    // svc fleet status / stop / start over the same fleet file.
    const status = await runSvc(['fleet', 'status'], { cwd: test.dir });
    expect(status.stdout).toMatch(
      // BUSY shows once daemons report busy/slots (docs/design.md D25).
      /^NODE +STATE +SERVING +(BUSY +)?LAST ACTIVE\na +idle *\nb +running +tiny-b +(\d+\/\d+ +)?\S+Z\n$/,
    );
    expect((await runSvc(['fleet', 'stop', 'b'], { cwd: test.dir })).stdout).toBe('b  stopped\n');
    const started = await runSvc(['fleet', 'start', 'a'], { cwd: test.dir });
    expect(started.stdout).toContain(`a: using ${join(test.dir, 'a.svc')}\na  running\n`);
    // A node already stopped is reported and counts as done.
    expect((await runSvc(['fleet', 'stop', '--all'], { cwd: test.dir })).stdout).toBe(
      'a  stopped\nb  already stopped\n',
    );
    const json = await runSvc(['fleet', 'stop', 'b', '--json'], { cwd: test.dir });
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([{ node: 'b', outcome: 'already', state: 'stopped' }]);
    const statusJson = JSON.parse(
      (await runSvc(['fleet', 'status', '--json'], { cwd: test.dir })).stdout,
    ) as {
      node: string;
      outcome: string;
      status: { state: string };
    }[];
    expect(statusJson.map((entry) => [entry.node, entry.outcome, entry.status.state])).toEqual([
      ['a', 'ok', 'stopped'],
      ['b', 'ok', 'stopped'],
    ]);
    expect((await runSvc(['fleet', 'start'], { cwd: test.dir })).stderr).toContain(
      'name the nodes to start, or pass --all',
    );

    // Nothing printed or replied carries the tokens or the key.
    for (const text of [
      test.gateway.output(),
      ...Object.values(test.daemons).map((daemon) => daemon.process.output()),
    ]) {
      expect(text).not.toContain(GATEWAY_TOKEN);
      expect(text).not.toContain(NODE_TOKEN);
      expect(text).not.toContain(ENGINE_KEY);
    }
    // Two real engines, a wake, streams and a 2 s wait: a fixed amount of work that is slow on a
    // loaded 2-core machine (over 30 s), not stuck.
  }, 120_000);
});

describe('svc gateway with fake engines', () => {
  it("replaces the caller's authorization with the engine key and returns the engine reply as is", async () => {
    const port = await freePort();
    const test = await fleet([
      {
        name: 'box',
        svcfile: `PROVIDER llamacpp\nMODEL org/m\nALIAS m\nBASEURL 127.0.0.1:${port}\n`,
        fake: '',
      },
    ]);
    // Started by the gateway: the daemon gates the engine with the fleet's key.
    const reply = await test.call('/v1/chat/completions', chat('m'));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-fake-engine')).toBe('yes');
    expect(await reply.json()).toEqual({ object: 'chat.completion', model: 'm', choices: [] });
    const engineLog = (await (
      await fetch(`${test.daemons['box']?.url ?? ''}/v1/logs`, {
        headers: { authorization: `Bearer ${NODE_TOKEN}` },
      })
    ).json()) as { content: string };
    const request = /fake-engine request: (.*)/.exec(engineLog.content)?.[1] ?? '{}';
    const recorded = JSON.parse(request) as {
      url: string;
      authorization: string | null;
      body: string;
    };
    expect(recorded.url).toBe('/v1/chat/completions');
    expect(recorded.authorization).toBe(`Bearer ${ENGINE_KEY}`);
    expect(JSON.parse(recorded.body)).toEqual(chat('m'));

    // A fake stream arrives chunk by chunk, each before the next is produced.
    const streamed = await test.call('/v1/chat/completions', chat('m', { stream: true }));
    const { events } = await readSse(streamed.body as ReadableStream<Uint8Array>);
    expect(events.map((event) => event.data).at(-1)).toBe('[DONE]');
    expect((events[2]?.at ?? 0) - (events[0]?.at ?? 0)).toBeGreaterThan(200);
  });

  it('serves a llama.cpp hub model with a quant under the name it lists, and passes Expect: 100-continue', async () => {
    const test = await fleet([
      {
        name: 'q',
        svcfile: `PROVIDER llamacpp\nMODEL org/repo-GGUF:Q4_K_M\nBASEURL 127.0.0.1:${await freePort()}\n`,
        fake: '',
      },
    ]);
    expect(await (await test.call('/v1/models')).json()).toMatchObject({
      object: 'list',
      data: [{ id: 'org/repo-GGUF:Q4_K_M', object: 'model', owned_by: 'q' }],
    });
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      // What curl sends for bodies over 1 MB: Expect: 100-continue.
      const body = JSON.stringify(chat('org/repo-GGUF:Q4_K_M'));
      const request = httpRequest(`${test.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${GATEWAY_TOKEN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      });
      request.on('continue', () => request.end(body));
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      });
      request.on('error', reject);
    });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ object: 'chat.completion' });
  });

  it('never echoes the text of a malformed body', async () => {
    const test = await fleet([
      { name: 'box', svcfile: 'PROVIDER llamacpp\nMODEL org/m\nALIAS m\n', fake: '' },
    ]);
    const reply = await fetch(`${test.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' },
      body: '{"model": "m", "api_key": sk-secret-abc}',
    });
    expect(reply.status).toBe(400);
    const message = await errorOf(reply);
    expect(message).toMatch(/^the request is not a JSON body/);
    expect(message).not.toContain('sk-secret');
  });

  it('aborts the engine request when the caller disconnects mid-stream', async () => {
    const port = await freePort();
    const test = await fleet([
      {
        name: 'box',
        svcfile: `PROVIDER llamacpp\nMODEL org/m\nALIAS m\nBASEURL 127.0.0.1:${port}\n`,
        fake: 'chunks:20',
      },
    ]);
    const abort = new AbortController();
    const reply = await fetch(`${test.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(chat('m', { stream: true })),
      signal: abort.signal,
    });
    const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
    // A slow wake sends ": waking" comments first: abort once the engine's own stream has begun.
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('data: ')) {
      const { value, done } = await reader.read();
      if (done) {
        break;
      }
      received += decoder.decode(value, { stream: true });
    }
    abort.abort();
    const logs = async (): Promise<string> =>
      (
        (await (
          await fetch(`${test.daemons['box']?.url ?? ''}/v1/logs`, {
            headers: { authorization: `Bearer ${NODE_TOKEN}` },
          })
        ).json()) as { content: string }
      ).content;
    const log = await eventually(
      logs,
      (text) => text.includes('stream aborted'),
      'the engine logging its aborted stream',
      { intervalMs: 100, show: (text) => text.slice(-2000) },
    );
    expect(log).toMatch(/fake-engine: stream aborted after (\d|1\d) chunks/);
  });

  it('fails a wake that outlasts --wake-timeout, leaving the engine running', async () => {
    const test = await fleet(
      [
        {
          name: 'slow',
          svcfile: `PROVIDER llamacpp\nMODEL org/m\nALIAS m\nBASEURL 127.0.0.1:${await freePort()}\n`,
          fake: 'slow-health:60000',
        },
      ],
      { gatewayArgs: ['--wake-timeout', '2s'] },
    );
    const reply = await test.call('/v1/chat/completions', chat('m'));
    expect(reply.status).toBe(504);
    expect(reply.headers.get('retry-after')).toBe('30');
    expect(await errorOf(reply)).toBe(
      'node "slow" did not answer within 2s: its engine may still be loading, so it has been left running; check `svc fleet status`',
    );
    // Left running: the daemon reports it so once its start window ends (a loaded machine may
    // answer the 504 before that), and nothing stops it.
    const state = async (): Promise<string> =>
      (
        (await (
          await fetch(`${test.daemons['slow']?.url ?? ''}/v1/status`, {
            headers: { authorization: `Bearer ${NODE_TOKEN}` },
          })
        ).json()) as { state: string }
      ).state;
    expect(
      await eventually(state, (now) => now !== 'idle', 'the daemon leaving its start window'),
    ).toBe('running');
  });

  it('refuses without starting anything when wake is off, naming the node and svc fleet start', async () => {
    const test = await fleet(
      [
        {
          name: 'box',
          svcfile: `PROVIDER llamacpp\nMODEL org/m\nALIAS m\nBASEURL 127.0.0.1:${await freePort()}\n`,
          fake: '',
        },
      ],
      { top: ['wake: off'] },
    );
    const reply = await test.call('/v1/chat/completions', chat('m'));
    expect(reply.status).toBe(404);
    expect(reply.headers.get('retry-after')).toBeNull();
    expect(await errorOf(reply)).toContain('wake is off in');
    expect(await errorOf(await test.call('/v1/chat/completions', chat('m')))).toContain(
      'start it with `svc fleet start box`',
    );
    expect(starts(test.daemons['box'])).toBe(0);
    // Not wakeable: not listed.
    expect(await (await test.call('/v1/models')).json()).toEqual({ object: 'list', data: [] });
    const unknown = await test.call('/v1/chat/completions', chat('other'));
    expect(await errorOf(unknown)).toContain("no node's source describes other");
  });

  it('never routes to a loopback-only engine without an engine override, and says so at once', async () => {
    const test = await fleet([
      {
        name: 'local',
        svcfile: `PROVIDER llamacpp\nMODEL org/m\nALIAS m\nBASEURL 127.0.0.1:${await freePort()}\n`,
        fake: '',
        loopbackEngine: true,
      },
    ]);
    // "At once" is the reply itself: a gateway that waited for an engine it can never reach would
    // answer 504 after the 5 min default wake timeout, far past this test's own limit.
    const reply = await test.call('/v1/chat/completions', chat('m'));
    expect(reply.status).toBe(502);
    const message = await errorOf(reply);
    expect(message).toContain('node "local" has its engine bound to loopback');
    // Already running now: a second request is refused straight away too.
    expect(await errorOf(await test.call('/v1/chat/completions', chat('m')))).toContain(
      'bound to loopback',
    );
  });

  it('answers 401 without the gateway token on every path, 404 naming the served paths, 400 without a model', async () => {
    const test = await fleet([
      { name: 'box', svcfile: `PROVIDER llamacpp\nMODEL org/m\nALIAS m\n`, fake: '' },
    ]);
    for (const path of ['/health', '/v1/models', '/v1/fleet', '/v1/chat/completions', '/nope']) {
      for (const token of [null, 'wrong']) {
        const reply = await test.call(
          path,
          path.includes('completions') ? chat('m') : undefined,
          token,
        );
        expect(reply.status).toBe(401);
        expect(reply.headers.get('www-authenticate')).toBe('Bearer');
        expect(await errorOf(reply)).toBe('missing or invalid bearer token');
      }
    }
    expect(await (await test.call('/health')).json()).toEqual({ ok: true });
    const missing = await test.call('/v2/nope');
    expect(missing.status).toBe(404);
    const served = await errorOf(missing);
    expect(served).toMatch(/^the gateway serves GET \/health; GET \/v1\/models; /);
    expect(served).toMatch(/not GET \/v2\/nope$/);
    const noModel = await test.call('/v1/chat/completions', { messages: [] });
    expect(noModel.status).toBe(400);
    expect(await errorOf(noModel)).toContain('names no model');
    expect(starts(test.daemons['box'])).toBe(0);
  });

  it('reports a node that does not answer in its place', async () => {
    const test = await fleet([
      { name: 'box', svcfile: 'PROVIDER llamacpp\nMODEL org/m\nALIAS m\n', fake: '' },
    ]);
    await test.daemons['box']?.terminate();
    const topology = await eventually(
      async () =>
        (await (await test.call('/v1/fleet')).json()) as { nodes: Record<string, unknown>[] },
      // A refresh already under way when the daemon went may read ECONNRESET; the next is refused.
      (fleet) =>
        fleet.nodes[0]?.['state'] === 'unreachable' &&
        String(fleet.nodes[0]['detail']).includes('ECONNREFUSED'),
      'node box reported unreachable, connection refused',
    );
    expect(topology.nodes[0]).toMatchObject({ name: 'box', kind: 'daemon', state: 'unreachable' });
    expect(String(topology.nodes[0]?.['detail'])).toContain('ECONNREFUSED');
    expect(await (await test.call('/v1/models')).json()).toEqual({ object: 'list', data: [] });
    const status = await runSvc(['fleet', 'status'], { cwd: test.dir });
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/box +unreachable +.*ECONNREFUSED/);
  });
});

describe('svc gateway startup refusals (spec §7)', () => {
  it('refuses a non-loopback listen without a token, naming the three ways', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'fleet.yaml'), 'nodes:\n  - name: a\n    host: 127.0.0.1\n');
    const result = await runSvc(['gateway', '--listen', '0.0.0.0:0'], {
      cwd: dir,
      env: { SVC_API_TOKEN: '' },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      'pass --api-token-file <path>, set SVC_API_TOKEN, or pass --api-token <value>',
    );
  });

  it('refuses a token variable set nowhere, naming the node', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'fleet.yaml'),
      'nodes:\n  - name: gpu-a\n    host: 127.0.0.1\n    tokenEnv: NOT_SET_ANYWHERE\n',
    );
    const result = await runSvc(['gateway', '--loopback'], { cwd: dir });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('NOT_SET_ANYWHERE is not set (node "gpu-a", tokenEnv)');
  });

  it('refuses two token sources, a missing fleet file, remote nodes and a bad wake timeout', async () => {
    const dir = await tempDir();
    expect((await runSvc(['gateway', '--loopback'], { cwd: dir })).stderr).toContain(
      `no fleet file at ${join(dir, 'fleet.yaml')}`,
    );
    await writeFile(join(dir, 'fleet.yaml'), 'nodes:\n  - name: cloud\n    kind: remote\n');
    expect((await runSvc(['gateway', '--loopback'], { cwd: dir })).stderr).toContain(
      'node "cloud" is a remote environment',
    );
    await writeFile(join(dir, 'fleet.yaml'), 'nodes:\n  - name: a\n    host: 127.0.0.1\n');
    const two = await runSvc(['gateway', '--loopback', '--api-token', 'x'], {
      cwd: dir,
      env: { SVC_API_TOKEN: 'y' },
    });
    expect(two.stderr).toContain('SVC_API_TOKEN and --api-token both give an API token');
    expect(
      (await runSvc(['gateway', '--loopback', '--wake-timeout', 'soon'], { cwd: dir })).stderr,
    ).toContain('--wake-timeout "soon" is not a duration');
  });
});
