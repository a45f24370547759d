/**
 * A stream the gateway ends itself says why before it closes (docs/design.md D33): Ctrl+C on the
 * built gateway while a streamed request waits for a node to wake ends that stream with an SSE
 * error event naming the shutdown, and the access line says `outcome=stopped` and names the
 * caller's address. The node's wake command never brings its daemon up, so the wait is certain.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { freePort } from '../support/svc/daemon.ts';
import { ENGINE_KEY, NODE_TOKEN, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { stream } from '../support/svc/scale-to-zero.ts';
import { tempDir } from '../support/svc/svc.ts';

describe('streams the gateway ends', () => {
  it('Ctrl+C while a stream waits for a wake ends it with an error event saying why', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    await writeFile(
      join(dir, 'sleeper.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${await freePort()}\n`,
    );
    // A machine that takes its time to wake: the command outlasts the test.
    const wakeCommand = [process.execPath, '-e', 'setTimeout(() => {}, 120000)'];
    await writeFile(
      join(dir, 'fleet.yaml'),
      [
        'nodes:',
        '  - name: sleeper',
        '    host: 127.0.0.1',
        `    port: ${await freePort()}`,
        '    tokenEnv: NODE_TOKEN',
        '    engineTokenEnv: ENGINE_KEY',
        '    file: sleeper.svc',
        '    engine: {host: 127.0.0.1}',
        `    wakeCommand: ${JSON.stringify(wakeCommand)}`,
        '',
      ].join('\n'),
    );
    await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);
    const { gateway, url } = await startTestGateway({
      cwd: dir,
      configDir: join(dir, 'config'),
      args: ['--wake-timeout', '2m'],
    });

    const reply = await stream(url, 'tiny', 4);
    expect(reply.status).toBe(200);
    const reader = reply.body?.getReader();
    const decoder = new TextDecoder();
    let told = '';
    while (!/^: waking sleeper/m.test(told)) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) {
        break;
      }
      told += decoder.decode(chunk.value as Uint8Array, { stream: true });
    }
    expect(told).toMatch(/^: waking sleeper/m);

    gateway.child.kill('SIGINT');
    for (;;) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) {
        break;
      }
      told += decoder.decode(chunk.value as Uint8Array, { stream: true });
    }
    const event = /^data: (\{.*\})$/m.exec(told)?.[1];
    expect(JSON.parse(event ?? '{}')).toMatchObject({
      error: { code: 'shutting_down', message: expect.stringMatching(/shutting down/) as unknown },
    });
    expect(await gateway.exited()).toBe(0);
    expect(gateway.stderr()).toMatch(
      /api request .*path=\/v1\/chat\/completions.*status=200.*remote=127\.0\.0\.1.*outcome=stopped/,
    );
  });
});
