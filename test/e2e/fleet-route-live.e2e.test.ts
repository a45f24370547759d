/**
 * `svc fleet route` says what the gateway then does (docs/design.md D33), end to end: the built
 * gateway runs the real llama-server on the tiny model for two `kind: local` nodes that name no
 * port (the gateway picks each engine's), one slot each, in a group of one. The CLI asks the
 * gateway the fleet file names (`GET /v1/fleet/route`), and each answer is then checked against
 * what the gateway does with the next request: a wake, a serve on the auto-port engine (its port as
 * `/v1/fleet` reports it), a queue behind a full slot, and a swap that stops the other member.
 *
 * A slot is held by a stream that never ends on its own (context shift on, end-of-sequence
 * ignored, as gateway-scheduler.e2e.test.ts holds one), read and dropped, aborted to free it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chat as post } from '../support/http/chat.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { authorized, GATEWAY_TOKEN, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { chat } from '../support/svc/scale-to-zero.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

let dir: string;

afterAll(endSharedByFile);

beforeAll(async () => {
  dir = await sharedByFile(() => tempDir());
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  for (const alias of ['alpha', 'beta']) {
    await writeFile(
      join(dir, `${alias}.svc`),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\nPARALLEL 1\nPRESET ${alias}.ini\n`,
    );
    await writeFile(join(dir, `${alias}.ini`), `[${alias}]\ncontext-shift = on\nthreads = 1\n`);
  }
});

interface Fleet {
  readonly queued?: Record<string, number>;
  readonly nodes: { name: string; state: string; engine?: { port: number; path: string } }[];
}

async function fleetOf(url: string): Promise<Fleet> {
  return (await (await fetch(`${url}/v1/fleet`, { headers: authorized() })).json()) as Fleet;
}

/** `svc fleet route <model>`, as JSON and as text, asking the gateway the fleet file names. */
async function route(model: string): Promise<{ json: Record<string, unknown>; text: string }> {
  const env = { GW_TOKEN: GATEWAY_TOKEN };
  const json = await runSvc(['fleet', 'route', model, '--json'], { cwd: dir, env });
  const text = await runSvc(['fleet', 'route', model], { cwd: dir, env });
  expect(json.stderr).toBe('');
  expect(text.stdout).toContain('the live decision of the gateway');
  return { json: JSON.parse(json.stdout) as Record<string, unknown>, text: text.stdout };
}

/** Takes alpha's one slot with a stream that never ends on its own, until released. */
async function hold(url: string): Promise<() => Promise<void>> {
  const abort = new AbortController();
  const reply = await post(
    url,
    { model: 'alpha', stream: true, max_tokens: 1_000_000, ignore_eos: true },
    { headers: authorized(), signal: abort.signal },
  );
  expect(reply.status).toBe(200);
  const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  const drained = (async () => {
    for (;;) {
      if ((await reader.read()).done) {
        return;
      }
    }
  })().catch(() => undefined);
  return async () => {
    abort.abort();
    await reader.cancel().catch(() => undefined);
    await drained;
  };
}

describe('svc fleet route against a live gateway', () => {
  it('over a group of one and an auto-port local node, says what the gateway then does', async () => {
    const lines = [
      'groups: {gpu: {max: 1, minResidency: 0s}}',
      'nodes:',
      '  - {name: alpha, kind: local, file: alpha.svc, group: gpu}',
      '  - {name: beta, kind: local, file: beta.svc, group: gpu}',
    ];
    await writeFile(join(dir, 'fleet.yaml'), `${lines.join('\n')}\n`);
    const { url } = await startTestGateway({
      cwd: dir,
      configDir: join(dir, 'config'),
      logLevel: 'info',
      env: { PATH: testPath() },
    });
    // The CLI's copy of the file names the gateway, as a user's would once it listens.
    const named = [`gateway: {url: ${url}, tokenEnv: GW_TOKEN}`, ...lines];
    await writeFile(join(dir, 'fleet.yaml'), `${named.join('\n')}\n`);

    // Nothing runs: a request would wake alpha; it does.
    expect((await route('alpha')).json).toMatchObject({ action: 'wake', node: 'alpha', stops: [] });
    expect(await chat(url, 'alpha')).toBe('200 chat.completion');

    // alpha runs on a port the gateway chose: /v1/fleet carries it, and the route serves there.
    const entry = (await fleetOf(url)).nodes.find((node) => node.name === 'alpha');
    expect(entry?.engine).toEqual({ port: expect.any(Number) as number, path: '/v1' });
    const serve = await route('alpha');
    expect(serve.json).toMatchObject({
      action: 'serve',
      node: 'alpha',
      engine: `http://127.0.0.1:${entry?.engine?.port ?? 0}/v1`,
    });
    expect(serve.text).toMatch(/^alpha → alpha \(serve\)/);

    // Its one slot held: the route says queue, alpha full; the next request waits in the queue.
    const release = await hold(url);
    const full = await route('alpha');
    expect(full.json).toMatchObject({ action: 'queue' });
    expect(full.text).toMatch(/\n {2}alpha +full +serves alpha; all 1 slots busy \(1 ours\)\n/);
    const queued = chat(url, 'alpha');
    await eventually(
      () => fleetOf(url),
      (fleet) => fleet.queued?.['alpha'] === 1,
      'the next request queued for alpha',
    );
    await release();
    expect(await queued).toBe('200 chat.completion');

    // beta in the same group of one: the route says alpha is stopped first, and it is.
    const swap = await route('beta');
    expect(swap.json).toMatchObject({ action: 'swap', node: 'beta', stops: ['alpha'] });
    expect(swap.text).toContain('stops: alpha');
    expect(await chat(url, 'beta')).toBe('200 chat.completion');
    // /v1/fleet shows the stop at alpha's next refresh.
    await eventually(
      async () =>
        Object.fromEntries((await fleetOf(url)).nodes.map((node) => [node.name, node.state])),
      (states) => states['alpha'] === 'stopped' && states['beta'] === 'running',
      'alpha stopped and beta running',
    );
  });
});
