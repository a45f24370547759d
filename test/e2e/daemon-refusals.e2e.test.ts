/**
 * A real daemon's refusals (spec §1.6, §2.7): every refused start is logged the same way, at
 * warn with its reason, whether the schema or the daemon refused it; only an engine that failed
 * to start from a valid config is an error. A deploy config whose instanceType is not family.size
 * is refused on push and on start, and nothing is stored.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FAKE_BIN_DIR, freePort, startTestDaemon } from '../support/svc/daemon.ts';
import { tempDir } from '../support/svc/svc.ts';

const KEY = 'refusals-engine-key-5c2e';

describe('svc daemon refusals', () => {
  it('logs refused starts at warn and a failed start at error', async () => {
    const node = await startTestDaemon({
      configDir: await tempDir(),
      path: [FAKE_BIN_DIR],
      env: { FAKE_ENGINE: 'exit-now' },
    });
    const refused: [unknown, string][] = [
      [{ runner: 'ollama' }, 'runner must be one of llamacpp, vllm, mtplx'],
      [{ runner: 'vllm' }, 'modelId: the deploy config names no model: set modelId'],
      [{ runner: 'vllm', modelId: 'o/m', engineApiKey: KEY }, 'vllm cannot be gated'],
      [undefined, 'nothing to serve'],
      [{ runner: 'vllm', modelId: 'o/m', instanceType: 'bogus' }, 'instanceType must be'],
    ];
    for (const [body, reason] of refused) {
      const reply = await node.call('POST', '/v1/start', body === undefined ? {} : { body });
      expect(reply.status).toBe(400);
      expect(reply.json['error']).toContain(reason);
    }
    const failed = await node.call('POST', '/v1/start', {
      body: { runner: 'mtplx', modelId: 'o/m', serveArgs: ['--port', String(await freePort())] },
    });
    expect(failed.status).toBe(400);
    expect(await node.terminate()).toBe(0);

    const records = node.process
      .stderr()
      .split('\n')
      .filter((line) => /(WARN|ERROR) /.test(line) && !line.includes(' api request '));
    expect(records.map((line) => line.replace(/^\S+ /, '').replace(/ reason=.*/, ''))).toEqual([
      ...refused.map(() => 'WARN  start refused'),
      'ERROR engine start failed runner=mtplx',
    ]);
    refused.forEach(([, reason], index) => {
      expect(records[index]).toContain(reason);
    });
    expect(node.process.output()).not.toContain(KEY);
  });

  it('refuses a deploy config whose instanceType is not family.size, storing nothing', async () => {
    const configDir = await tempDir();
    const node = await startTestDaemon({ configDir, path: [FAKE_BIN_DIR] });
    const reply = await node.call('PUT', '/v1/deploy-config', {
      body: { runner: 'vllm', modelId: 'o/m', instanceType: 'bogus' },
    });
    expect(reply).toMatchObject({
      status: 400,
      json: {
        error: 'instanceType must be a family and a size separated by a dot, such as g6e.xlarge',
      },
    });
    await expect(readFile(join(configDir, 'daemon', 'deploy-config.json'))).rejects.toThrow();
    const stored = await node.call('PUT', '/v1/deploy-config', {
      body: { runner: 'vllm', modelId: 'o/m', instanceType: 'g6e.xlarge' },
    });
    expect(stored.status).toBe(200);
    expect(await node.terminate()).toBe(0);
  });
});
