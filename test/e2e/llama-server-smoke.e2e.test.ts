/**
 * The test engine kit works: the real llama-server (scripts/install-test-engine.sh) loads the
 * model our own GGUF writer makes, reports healthy, and streams a chat completion chunk by chunk.
 * Later suites rely on exactly this, so it runs in CI and never skips.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readSse } from '../support/http/sse.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { findLlamaServer, testPath } from '../support/prerequisites/engines.ts';
import { startProcess } from '../support/processes/processes.ts';
import { waitForStatus } from '../support/svc/daemon.ts';

let workDir: string;
let modelPath: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'svc-smoke-'));
  modelPath = await writeTinyModel(join(workDir, 'tiny.gguf'));
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('real llama-server on the generated tiny model', () => {
  it('becomes healthy and streams /v1/chat/completions chunk by chunk', async () => {
    const engine = startProcess(
      findLlamaServer(),
      ['-m', modelPath, '--host', '127.0.0.1', '--port', '0', '--threads', '1'],
      { env: { ...process.env, PATH: testPath() } },
    );
    const [, port] = await engine.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const base = `http://127.0.0.1:${port}`;
    await waitForStatus(`${base}/health`, 200);

    const reply = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'hello world' }],
        max_tokens: 12,
        stream: true,
      }),
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/text\/event-stream/);
    if (reply.body === null) {
      throw new Error('streamed reply has no body');
    }
    const { events, reads } = await readSse(reply.body);

    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as ChatChunk);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    const contentChunks = chunks.filter(
      (chunk) => typeof chunk.choices[0]?.delta.content === 'string',
    );
    expect(contentChunks.length).toBeGreaterThan(1);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toMatch(/^(length|stop)$/);
    // Streamed, not one buffered body: no length known up front. (How many network reads it
    // took depends on the machine's speed: a loaded client can read all of it at once.)
    expect(reply.headers.get('content-length')).toBeNull();
    expect(reads).toBeGreaterThanOrEqual(1);

    await engine.kill();
    expect(engine.child.signalCode ?? engine.child.exitCode).not.toBeNull();
  });
});

interface ChatChunk {
  object: string;
  choices: { delta: { content?: string | null }; finish_reason: string | null }[];
}
