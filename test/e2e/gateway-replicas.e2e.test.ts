/**
 * Gateway replicas keep no state of their own (docs/gateway.md): several may run side by side over
 * one fleet. Three built gateways over one stopped real daemon, each hit by concurrent requests for
 * its model, start exactly one engine between them, and every request is answered: the daemon
 * serialises starts and a gateway that gets 409 waits for the engine already starting.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { startProcess } from '../support/processes/processes.ts';
import { freePort, startTestDaemon } from '../support/svc/daemon.ts';
import { SVC, tempDir } from '../support/svc/svc.ts';

const GATEWAY_TOKEN = 'gateway-token-3c4d';
const NODE_TOKEN = 'node-token-6a7b';

describe('several gateways over one fleet', () => {
  it('three gateways, concurrent requests on each, wake one engine and answer every request', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const daemon = await startTestDaemon({
      configDir: join(dir, 'config-node'),
      token: NODE_TOKEN,
      env: { SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
    });
    await writeFile(
      join(dir, 'node.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${await freePort()}\n`,
    );
    await writeFile(
      join(dir, 'fleet.yaml'),
      [
        'nodes:',
        '  - name: node',
        '    host: 127.0.0.1',
        `    port: ${new URL(daemon.url).port}`,
        '    tokenEnv: NODE_TOKEN',
        '    file: node.svc',
        '    engine: {host: 127.0.0.1}',
        '',
      ].join('\n'),
    );
    await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\n`);

    const urls: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const gateway = startProcess(SVC, ['gateway', '--listen', '127.0.0.1:0'], {
        cwd: dir,
        env: {
          ...process.env,
          SVC_API_TOKEN: GATEWAY_TOKEN,
          SVC_CONFIG_DIR: join(dir, `config-gateway-${index}`),
        },
      });
      const [, url = ''] = await gateway.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      urls.push(url);
    }

    // Four concurrent requests on each gateway, all at once, while the node is stopped.
    const replies = await Promise.all(
      urls.flatMap((url) =>
        Array.from({ length: 4 }, async () => {
          const reply = await fetch(`${url}/v1/chat/completions`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${GATEWAY_TOKEN}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({
              model: 'tiny',
              messages: [{ role: 'user', content: 'hello' }],
              max_tokens: 4,
            }),
          });
          const body = (await reply.json()) as { object?: string };
          return `${reply.status} ${body.object ?? JSON.stringify(body)}`;
        }),
      ),
    );
    expect(replies).toEqual(Array(12).fill('200 chat.completion'));
    expect(daemon.process.stderr().match(/INFO {2}starting engine/g) ?? []).toHaveLength(1);
  });
});
