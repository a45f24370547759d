/**
 * docs/design.md D25 end to end: a daemon started from a Svcfile that says PARALLEL 2 (through `svc
 * fleet start`, the way a fleet starts it, gated with an engine key) reports the real
 * llama-server's slots in status and metrics, and `busy` follows a streamed completion in one of
 * them. The preset's context-shift lets an endless completion (max_tokens -1) run until the test
 * ends it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { freePort, startTestDaemon, type TestDaemon } from '../support/svc/daemon.ts';
import { ENGINE_KEY, NODE_TOKEN } from '../support/svc/gateway-fleet.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

let node: TestDaemon;
let engineUrl: string;

beforeAll(async () => {
  await sharedByFile(async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    node = await startTestDaemon({
      configDir: join(dir, 'config'),
      token: NODE_TOKEN,
      env: { SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
    });
    const port = await freePort();
    engineUrl = `http://127.0.0.1:${port}`;
    await writeFile(
      join(dir, 'gpu.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nPARALLEL 2\nPRESET preset.ini\nBASEURL 127.0.0.1:${port}\n`,
    );
    await writeFile(join(dir, 'preset.ini'), '[tiny]\ncontext-shift = on\n');
    await writeFile(
      join(dir, 'fleet.yaml'),
      [
        'nodes:',
        '  - name: gpu',
        '    host: 127.0.0.1',
        `    port: ${new URL(node.url).port}`,
        '    tokenEnv: NODE_TOKEN',
        '    engineTokenEnv: ENGINE_KEY',
        '    file: gpu.svc',
        '',
      ].join('\n'),
    );
    await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);
    const started = await runSvc(['fleet', 'start', 'gpu'], { cwd: dir });
    expect(started.stdout).toMatch(/^gpu {2}running$/m);
    expect(started.status).toBe(0);
  });
});

afterAll(async () => {
  await endSharedByFile();
});

const status = async (): Promise<Record<string, unknown>> =>
  (await node.call('GET', '/v1/status')).json;

describe('slots and busy from the real llama-server (docs/design.md D25)', () => {
  it('reports PARALLEL 2 as slots, and nothing busy while idle', async () => {
    const idle = await eventually(
      status,
      (reply) => reply['ready'] === 'ready' && reply['busy'] !== undefined,
      'the engine ready, with a first scrape',
    );
    expect(idle).toMatchObject({ state: 'running', slots: 2, busy: 0 });
    expect((await node.call('GET', '/v1/metrics')).json).toMatchObject({ slots: 2, busy: 0 });
  });

  it('counts a streamed completion as busy while it runs, and not once it is cut off', async () => {
    const abort = new AbortController();
    const reply = await fetch(`${engineUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ENGINE_KEY}` },
      body: JSON.stringify({ prompt: 'hello', max_tokens: -1, ignore_eos: true, stream: true }),
      signal: abort.signal,
    });
    expect(reply.status).toBe(200);
    const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const busy = await eventually(
      status,
      (now) => typeof now['busy'] === 'number' && now['busy'] >= 1,
      'busy to count the stream',
    );
    expect(busy['slots']).toBe(2);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    await eventually(status, (now) => now['busy'] === 0, 'busy back to 0 once the stream ends');
  });
});
