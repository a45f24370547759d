/**
 * A stream the gateway ends itself says why before it closes (docs/design.md D33): Ctrl+C on the
 * built gateway while a streamed request waits for a node to wake, or while the real llama-server
 * of a local node streams its reply through the relay, and `svc fleet stop --force` of that node
 * mid-stream, each end the stream with an SSE error event saying why, and the access line says
 * `outcome=stopped` and names the caller's address. The sleeper's wake command never brings its
 * daemon up, so that wait is certain; the local node generates far more tokens than the test
 * waits for, so its stream is certain to be under way when it is ended.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { freePort } from '../support/svc/daemon.ts';
import {
  authorized,
  ENGINE_KEY,
  GATEWAY_TOKEN,
  NODE_TOKEN,
  startTestGateway,
} from '../support/svc/gateway-fleet.ts';
import { stream } from '../support/svc/scale-to-zero.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

/**
 * Tokens asked of the local node: minutes of generation for the tiny model at any speed seen,
 * so the stream is still under way whenever the test ends it.
 */
const LONG = 60_000;

/** A stream's reply, read as it arrives. */
class Told {
  text = '';
  private readonly decoder = new TextDecoder();

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Reads until `pattern` matches what came, or the stream ends. */
  async until(pattern: RegExp): Promise<string> {
    while (!pattern.test(this.text)) {
      const chunk = await this.reader.read();
      if (chunk.done) {
        break;
      }
      this.text += this.decoder.decode(chunk.value, { stream: true });
    }
    return this.text;
  }

  /** Reads to the stream's end. */
  async rest(): Promise<string> {
    for (let chunk = await this.reader.read(); !chunk.done; chunk = await this.reader.read()) {
      this.text += this.decoder.decode(chunk.value, { stream: true });
    }
    return this.text;
  }

  /** The last `data:` event's JSON. */
  lastEvent(): unknown {
    const events = [...this.text.matchAll(/^data: (.*)$/gm)].map((match) => match[1]);
    return JSON.parse(events.at(-1) ?? '{}');
  }
}

/** A long streamed generation through the gateway, once its first engine chunk came. */
async function longStream(url: string): Promise<Told> {
  const reply = await stream(url, 'tiny', LONG);
  expect(reply.status).toBe(200);
  const told = new Told((reply.body as ReadableStream<Uint8Array>).getReader());
  expect(await told.until(/^data: \{/m)).toMatch(/^data: \{"choices"/m);
  return told;
}

/** `svc gateway` running one local node on the real llama-server, and a fleet file naming it. */
async function localGateway(): Promise<{
  dir: string;
  url: string;
  fleetPath: string;
  gateway: Awaited<ReturnType<typeof startTestGateway>>['gateway'];
}> {
  const dir = await tempDir();
  // A context room for the whole generation: the engine never stops it early.
  const model = await writeTinyModel(join(dir, 'tiny.gguf'), { contextLength: 65_536 });
  await writeFile(
    join(dir, 'tiny.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nCONTEXT 65536\n`,
  );
  const node = ['nodes:', '  - {name: local, kind: local, file: tiny.svc}'];
  await writeFile(join(dir, 'gateway.yaml'), `${node.join('\n')}\n`);
  const { gateway, url } = await startTestGateway({
    cwd: dir,
    configDir: join(dir, 'config'),
    args: ['--fleet', join(dir, 'gateway.yaml')],
    logLevel: 'info',
    env: { PATH: testPath() },
  });
  const fleetPath = join(dir, 'fleet.yaml');
  const section = `gateway: {url: ${url}, tokenEnv: GATEWAY_TOKEN}`;
  await writeFile(fleetPath, [section, ...node, ''].join('\n'));
  return { dir, url, fleetPath, gateway };
}

/** The access line of a stream the gateway ended itself. */
const STOPPED_LINE =
  /api request .*path=\/v1\/chat\/completions.*status=200.*remote=127\.0\.0\.1.*outcome=stopped/;

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

  it('svc fleet stop --force of the node a stream is relayed from ends it saying why', async () => {
    const { dir, url, fleetPath, gateway } = await localGateway();
    const started = await fetch(`${url}/v1/fleet/nodes/local/start`, {
      method: 'POST',
      headers: authorized(),
    });
    expect(started.status, await started.text()).toBe(200);
    const told = await longStream(url);

    const env = { GATEWAY_TOKEN, SVC_CONFIG_DIR: join(dir, 'config-cli'), HOME: dir };
    const forced = await runSvc(['fleet', 'stop', 'local', '--force', '-f', fleetPath], {
      cwd: dir,
      env,
    });
    expect(forced).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/local +stopped/) as string,
    });
    expect(await told.rest()).not.toContain('[DONE]');
    expect(told.lastEvent()).toMatchObject({
      error: {
        code: 'node_stopped',
        message: expect.stringMatching(/node "local" was stopped by the operator/) as unknown,
      },
    });
    await gateway.waitFor(STOPPED_LINE);
    gateway.child.kill('SIGINT');
    expect(await gateway.exited()).toBe(0);
  });

  it('Ctrl+C while the engine streams through the relay ends the stream saying why', async () => {
    const { url, gateway } = await localGateway();
    // The request itself wakes the node.
    const told = await longStream(url);

    gateway.child.kill('SIGINT');
    expect(await told.rest()).not.toContain('[DONE]');
    expect(told.lastEvent()).toMatchObject({
      error: { code: 'shutting_down', message: expect.stringMatching(/shutting down/) as unknown },
    });
    expect(await gateway.exited()).toBe(0);
    expect(gateway.stderr()).toMatch(STOPPED_LINE);
  });
});
