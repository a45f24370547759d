/**
 * Fallbacks end to end (docs/design.md D30), through the built gateway with a real llama-server
 * (local node `gpu`, the tiny model), a command engine that fails on cue (local node `flaky`,
 * test/fixtures/command-server.mjs --fail) and the fake OpenAI server (upstream node `hosted`,
 * recording every request) in one fleet: while `gpu` wakes the first request is answered by the
 * fallback at once and the wake still starts, after which requests stay local, and it starts again
 * for the next such request once `gpu` was stopped (through the gateway); `flaky`'s 500
 * before any body is answered once by the fallback, its stream cut after the first byte is not
 * retried, its form (streamed to it as it arrived) is not sent again but refused with a 502 naming
 * both nodes, and a caller with `upstreams: off` never reaches the fake; each is counted in
 * svc_gateway_fallbacks_total. With the local node's one slot held (the fake engine's `hold`, a
 * fault the real one cannot show on cue) and no queue room, the fallback answers instead of 429. An `https` upstream with a self-signed certificate is trusted
 * through NODE_EXTRA_CA_CERTS, and refused without it.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type FakeOpenai, fakeOpenai, selfSignedTls } from '../support/fakes/fake-openai.ts';
import { chat } from '../support/http/chat.ts';
import { encodeForm, sendForm } from '../support/http/form.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { failingEngineSvcfile } from '../support/project-files/failing-engine.ts';
import { FAKE_BIN_DIR } from '../support/svc/daemon.ts';
import { authorized, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const OFF_TOKEN = 'caller-without-upstreams-3c1d';
const OPERATOR_TOKEN = 'operator-token-8b2a';

let fake: FakeOpenai;
let url: string;

beforeAll(() => sharedByFile(startFleet));

/** The fake, the fleet's files and the gateway, kept for the whole file. */
async function startFleet(): Promise<void> {
  fake = await fakeOpenai();
  const dir = await tempDir();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  await writeFile(
    join(dir, 'gpu.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nCONTEXT 256\n`,
  );
  await writeFile(join(dir, 'flaky.svc'), failingEngineSvcfile('flaky'));
  await writeFile(
    join(dir, 'fleet.yaml'),
    [
      'gateway: {operatorTokenEnv: OPERATOR_TOKEN}',
      'callers:',
      '  - {name: offline, tokenEnv: OFF_TOKEN, upstreams: off}',
      'nodes:',
      '  - {name: gpu, kind: local, file: gpu.svc}',
      '  - {name: flaky, kind: local, file: flaky.svc}',
      '  - name: hosted',
      '    kind: upstream',
      `    url: ${fake.url}`,
      '    models: [tiny, flaky]',
      'fallbacks:',
      '  tiny: {to: hosted, when: [waking, queueFull]}',
      '  flaky: {to: hosted, when: [failed]}',
      '',
    ].join('\n'),
  );
  ({ url } = await startTestGateway({
    cwd: dir,
    configDir: join(dir, 'config'),
    env: { PATH: testPath(), OFF_TOKEN, OPERATOR_TOKEN },
  }));
}

afterAll(async () => {
  await endSharedByFile();
  await fake.close();
});

const posts = (model: string): number =>
  fake.seen.filter((seen) => seen.path === '/v1/chat/completions' && seen.model === model).length;

/** What the gateway's scheduler would do with a request for `model` now, and where. */
async function routeOf(model: string): Promise<string> {
  const reply = await fetch(`${url}/v1/fleet/route?model=${model}`, { headers: authorized() });
  const body = (await reply.json()) as { action: string; node?: string };
  return `${body.action} ${body.node ?? ''}`;
}

/** Stops the local node `gpu` through the gateway's control API. */
async function stopGpu(): Promise<void> {
  const reply = await fetch(`${url}/v1/fleet/nodes/gpu/stop`, {
    method: 'POST',
    headers: authorized(OPERATOR_TOKEN),
  });
  expect(`${reply.status} ${await reply.text()}`).toMatch(/^200 /);
  // The gateway that stopped it places nothing more there: the next request wakes it.
  await eventually(
    () => routeOf('tiny'),
    (route) => route === 'fallback hosted',
    'tiny answered by the fallback while gpu is stopped',
  );
}

/** A request for tiny, answered by its waking fallback. */
async function fallbackAnswers(): Promise<void> {
  const reply = await chat(url, { model: 'tiny', max_tokens: 4 }, { headers: authorized() });
  expect(`${reply.status} ${await reply.text()}`).toMatch(/^200 /);
  expect(reply.headers.get('x-svc-node')).toBe('hosted');
  expect(reply.headers.get('x-svc-fallback')).toBe('waking');
}

describe('fallbacks through the gateway', () => {
  it('answers from the fallback while the local node wakes, then serves locally', async () => {
    const first = await chat(url, { model: 'tiny', max_tokens: 4 }, { headers: authorized() });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-svc-node')).toBe('hosted');
    expect(first.headers.get('x-svc-fallback')).toBe('waking');
    expect(first.headers.get('server-timing')).toContain('gateway;dur=');
    await first.text();
    expect(posts('tiny')).toBe(1);
    // The wake still started: the local node comes up without another request, and the
    // scheduler places the model there once it serves.
    await eventually(
      () => routeOf('tiny'),
      (route) => route === 'serve gpu',
      'tiny served by gpu',
      {
        timeoutMs: 120_000,
      },
    );
    for (let index = 0; index < 2; index += 1) {
      const local = await chat(url, { model: 'tiny', max_tokens: 4 }, { headers: authorized() });
      expect(local.status).toBe(200);
      expect(local.headers.get('x-svc-node')).toBe('gpu');
      expect(local.headers.get('x-svc-fallback')).toBeNull();
      await local.text();
    }
    // Local while it has a free slot: the fake saw nothing more.
    expect(posts('tiny')).toBe(1);
  });

  it('sends a request whose node answered 500 before any body once to the fallback', async () => {
    const reply = await chat(url, { model: 'flaky' }, { headers: authorized() });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-svc-node')).toBe('hosted');
    expect(reply.headers.get('x-svc-fallback')).toBe('failed');
    expect(await reply.json()).toMatchObject({ choices: [{ message: { content: 'hosted' } }] });
    expect(posts('flaky')).toBe(1);
  });

  it('does not retry a stream cut after its first byte', async () => {
    const reply = await chat(url, { model: 'flaky', stream: true }, { headers: authorized() });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-svc-node')).toBe('flaky');
    const text = await reply.text().catch((error: unknown) => `cut: ${String(error)}`);
    expect(text).not.toContain('hosted');
    expect(posts('flaky')).toBe(1);
  });

  it('never sends a caller with upstreams: off to the fallback', async () => {
    const reply = await chat(url, { model: 'flaky' }, { headers: authorized(OFF_TOKEN) });
    expect(reply.status).toBe(500);
    expect(reply.headers.get('x-svc-node')).toBe('flaky');
    expect(reply.headers.get('x-svc-fallback')).toBeNull();
    expect(await reply.text()).toContain('flaky failed');
    expect(posts('flaky')).toBe(1);
  });

  it('counts each fallback by model and reason in /metrics', async () => {
    const text = await (await fetch(`${url}/metrics`, { headers: authorized() })).text();
    expect(text).toContain('svc_gateway_fallbacks_total{model="tiny",reason="waking"} 1');
    expect(text).toContain('svc_gateway_fallbacks_total{model="flaky",reason="failed"} 1');
  });

  it('does not resend a form already streamed to a failed engine: 502 naming both nodes', async () => {
    const form = await encodeForm([
      ['model', 'flaky'],
      ['file', new Blob([randomBytes(256 * 1024)], { type: 'audio/wav' })],
    ]);
    const reply = await sendForm(url, authorized(), form);
    expect(reply.status).toBe(502);
    expect(await reply.text()).toContain(
      'the engine on flaky failed to answer, and the form, passed on as it arrived, cannot be sent again to hosted',
    );
    expect(fake.seen.filter((seen) => seen.path.startsWith('/v1/audio/'))).toEqual([]);
  });

  it('wakes the node again for a waking fallback after it was stopped', async () => {
    // Up since the first case; stopped through the gateway, the fallback answers and wakes it,
    // and it is stopped again (while it loads, or once up): the next request is answered by the
    // fallback and still wakes it.
    await stopGpu();
    await fallbackAnswers();
    await stopGpu();
    await fallbackAnswers();
    expect(posts('tiny')).toBe(3);
    await eventually(
      () => routeOf('tiny'),
      (route) => route === 'serve gpu',
      'tiny served by gpu again',
      { timeoutMs: 120_000 },
    );
  });
});

describe('the queueFull fallback', () => {
  it('answers from the fallback instead of 429 while the only local slot is held', async () => {
    const hosted = await fakeOpenai();
    const dir = await tempDir();
    await writeFile(
      join(dir, 'slow.svc'),
      'PROVIDER llamacpp\nMODEL org/m\nALIAS m\nPARALLEL 1\nENV FAKE_ENGINE=slots:1,chunks:6000,hold:600000\n',
    );
    await writeFile(
      join(dir, 'fleet.yaml'),
      [
        'queue: {max: 0}',
        'nodes:',
        '  - {name: slow, kind: local, file: slow.svc}',
        `  - {name: hosted, kind: upstream, url: "${hosted.url}", models: [m]}`,
        'fallbacks:',
        '  m: {to: hosted, when: [queueFull]}',
        '',
      ].join('\n'),
    );
    const started = await startTestGateway({
      cwd: dir,
      configDir: join(dir, 'config'),
      env: { PATH: testPath(FAKE_BIN_DIR) },
    });
    const holder = new AbortController();
    try {
      // The first request wakes the node and holds its one slot: a chunk each 100 ms for 10
      // minutes, until this test hangs up.
      const held = await chat(
        started.url,
        { model: 'm', stream: true },
        { headers: authorized(), signal: holder.signal },
      );
      expect(held.headers.get('x-svc-node')).toBe('slow');
      const reply = await chat(started.url, { model: 'm' }, { headers: authorized() });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-svc-node')).toBe('hosted');
      expect(reply.headers.get('x-svc-fallback')).toBe('queueFull');
      await reply.text();
      expect(hosted.seen.filter((seen) => seen.path === '/v1/chat/completions')).toHaveLength(1);
      const metrics = await fetch(`${started.url}/metrics`, { headers: authorized() });
      expect(await metrics.text()).toContain(
        'svc_gateway_fallbacks_total{model="m",reason="queueFull"} 1',
      );
    } finally {
      holder.abort();
      await started.gateway.kill();
      await hosted.close();
    }
  });
});

describe('an https upstream node', () => {
  it('is trusted through NODE_EXTRA_CA_CERTS, and refused with a 502 naming it without', async () => {
    const dir = await tempDir();
    const { key, cert, certPath } = await selfSignedTls(dir);
    const tls = await fakeOpenai({ key, cert });
    try {
      await writeFile(
        join(dir, 'fleet.yaml'),
        `nodes:\n  - {name: secure, kind: upstream, url: "${tls.url}", models: [big]}\n`,
      );
      for (const trusted of [true, false]) {
        const started = await startTestGateway({
          cwd: dir,
          configDir: join(dir, trusted ? 'trusted' : 'untrusted'),
          env: trusted ? { NODE_EXTRA_CA_CERTS: certPath } : {},
        });
        try {
          const reply = await chat(started.url, { model: 'big' }, { headers: authorized() });
          const text = await reply.text();
          if (trusted) {
            expect(reply.status).toBe(200);
            expect(reply.headers.get('x-svc-node')).toBe('secure');
          } else {
            expect(reply.status).toBe(502);
            expect(text).toContain('secure');
          }
        } finally {
          await started.gateway.kill();
        }
      }
      expect(tls.seen.filter((seen) => seen.path === '/v1/chat/completions')).toHaveLength(1);
    } finally {
      await tls.close();
    }
  });
});
