/**
 * `PROVIDER command` end to end (docs/design.md D31): any program as an engine, here a stand-in
 * OpenAI-compatible server of our own (test/fixtures/command-server.mjs), started by the built
 * `svc` from its COMMAND with `${PORT}` replaced, checked on its HEALTH path, answering a chat
 * request, and stopped with its STOP (`${PID}` replaced), which sends it SIGINT where svc would
 * have sent SIGTERM. Through `svc serve` (and its `-n`), and through `svc up` with a local node
 * whose port the gateway chose.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { arrivedIntact, type EncodedForm, encodeForm, sendForm } from '../support/http/form.ts';
import { freePort } from '../support/http/net.ts';
import { REPO_ROOT, testPath } from '../support/prerequisites/engines.ts';
import { alive, killSurvivorsAfterTest } from '../support/processes/process-tree.ts';
import { startProcess } from '../support/processes/processes.ts';
import { authorized, GATEWAY_TOKEN, localNodeFile } from '../support/svc/gateway-fleet.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const SERVER = join(REPO_ROOT, 'test', 'fixtures', 'command-server.mjs');

/** A command Svcfile: the stand-in on ${PORT}, ready on /ready-now, stopped by its --stop. */
function svcfile(lines: readonly string[] = []): string {
  return [
    'PROVIDER command',
    'ALIAS whisper-1',
    `COMMAND node ${SERVER} --port \${PORT} --name "stand in" --health /ready-now`,
    'HEALTH /ready-now',
    `STOP node ${SERVER} --stop \${PID}`,
    ...lines,
    '',
  ].join('\n');
}

describe('PROVIDER command through svc serve', () => {
  it("svc serve -n prints COMMAND with ${PORT} replaced by BASEURL's port", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'Svcfile'), svcfile(['BASEURL 127.0.0.1:9345']));
    const result = await runSvc(['serve', '-n', dir], { env: { SVC_CONFIG_DIR: join(dir, 'c') } });
    expect(result).toMatchObject({
      status: 0,
      stdout: `node ${SERVER} --port 9345 --name 'stand in' --health /ready-now\n`,
    });
  });

  it('starts the program, which answers; a SIGTERM to svc stops it with its STOP', async () => {
    const dir = await tempDir();
    const port = await freePort();
    await writeFile(join(dir, 'Svcfile'), svcfile([`BASEURL 127.0.0.1:${port}`]));
    const serve = startProcess(SVC, ['serve', dir], {
      env: {
        ...process.env,
        PATH: testPath(),
        SVC_CONFIG_DIR: join(dir, 'c'),
        SVC_LOG_LEVEL: 'info',
      },
    });
    await serve.waitFor(/stand in listening on 127\.0\.0\.1:\d+ \(pid \d+\)/);
    const pid = Number(/engine started .*pid=(\d+)/.exec(serve.output())?.[1]);
    killSurvivorsAfterTest([pid]);
    expect(serve.output()).toContain(`stand in listening on 127.0.0.1:${port} (pid ${pid})`);
    const reply = await chat(`http://127.0.0.1:${port}`, { model: 'whisper-1' });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({
      model: 'whisper-1',
      choices: [{ message: { content: 'served by stand in' } }],
    });

    process.kill(serve.pid, 'SIGTERM');
    expect(await serve.exited()).toBe(0);
    expect(alive([pid])).toEqual([]);
    expect(serve.output()).toContain('command-server: stopped by SIGINT');
    expect(serve.output()).not.toContain('stopped by SIGTERM');
  });
});

/** `svc up` in a fresh directory whose fleet is one local command node, `whisper`. */
async function upWithCommandNode(): Promise<{
  readonly dir: string;
  readonly url: string;
  readonly up: ReturnType<typeof startProcess>;
}> {
  const dir = await tempDir();
  const port = await freePort();
  const configDir = join(dir, 'config');
  await writeFile(join(dir, 'whisper.svc'), svcfile());
  await writeFile(
    join(dir, 'fleet.yaml'),
    [
      'gateway:',
      `  url: http://127.0.0.1:${port}`,
      '  tokenEnv: GATEWAY_TOKEN',
      'nodes:',
      '  - {name: whisper, kind: local, file: whisper.svc}',
      '',
    ].join('\n'),
  );
  const up = startProcess(SVC, ['up'], {
    cwd: dir,
    env: {
      ...process.env,
      PATH: testPath(),
      SVC_API_TOKEN: GATEWAY_TOKEN,
      SVC_CONFIG_DIR: configDir,
      SVC_LOG_LEVEL: 'warn',
    },
  });
  await up.waitFor(/local nodes whisper: engines run by this gateway/);
  return { dir, url: `http://127.0.0.1:${port}`, up };
}

describe('PROVIDER command through svc up (a local node)', () => {
  it('is started on a port the gateway chose, health-checked, answered, and stopped with its STOP', async () => {
    const { dir, url, up } = await upWithCommandNode();
    // The request wakes the node: COMMAND runs on a free port, HEALTH says when it is ready.
    const reply = await chat(url, { model: 'whisper-1' }, { headers: authorized() });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({
      choices: [{ message: { content: 'served by stand in' } }],
    });
    const record = JSON.parse(readFileSync(localNodeFile(up, 'whisper', 'engine.pid'), 'utf8')) as {
      pid: number;
    };
    killSurvivorsAfterTest([record.pid]);
    const fleetEnv = { GATEWAY_TOKEN, SVC_CONFIG_DIR: join(dir, 'config-fleet') };
    const ready = await eventually(
      () => runSvc(['fleet', 'status', '--json'], { cwd: dir, env: fleetEnv }),
      (run) => run.status !== 0 || /"ready": "ready"/.test(run.stdout),
      'svc fleet status showing the command node ready on its HEALTH path',
    );
    expect(JSON.parse(ready.stdout)).toMatchObject([
      { node: 'whisper', status: { state: 'running', servedName: 'whisper-1', ready: 'ready' } },
    ]);

    const stopped = await runSvc(['fleet', 'stop', 'whisper'], { cwd: dir, env: fleetEnv });
    expect(stopped).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/whisper +stopped/) as string,
    });
    expect(alive([record.pid])).toEqual([]);
    const log = readFileSync(localNodeFile(up, 'whisper', 'engine.log'), 'utf8');
    expect(log).toContain(`command-server: sent SIGINT to ${record.pid}`);
    expect(log).toContain('command-server: stopped by SIGINT');
    expect(log).not.toContain('stopped by SIGTERM');
    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
  });
});

describe('a multipart form through svc up to a PROVIDER command node (docs/design.md D31)', () => {
  it('is routed by its model field and arrives byte for byte; a late or missing model is refused', async () => {
    const { url, up } = await upWithCommandNode();
    // A few MB of audio that is no text: every byte value, in a pattern no boundary repeats.
    const audio = new Blob([randomBytes(3 * 1024 * 1024)], { type: 'audio/wav' });
    const send = (form: EncodedForm, path = 'transcriptions') =>
      sendForm(url, authorized(), form, path);
    const form = await encodeForm([
      ['model', 'whisper-1'],
      ['file', audio],
      ['response_format', 'json'],
    ]);
    const reply = await send(form);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-svc-node')).toBe('whisper');
    expect(await reply.json()).toEqual(arrivedIntact(form, 'stand in'));

    const late = await send(
      await encodeForm([
        ['file', audio],
        ['model', 'whisper-1'],
      ]),
      'translations',
    );
    expect(late.status).toBe(413);
    expect(await late.text()).toContain('within its first 1048576 bytes (1 MiB)');
    const none = await send(await encodeForm([['language', 'en']]));
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('add a form field named \\"model\\"');
    const record = JSON.parse(readFileSync(localNodeFile(up, 'whisper', 'engine.pid'), 'utf8')) as {
      pid: number;
    };
    killSurvivorsAfterTest([record.pid]);
    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
  });
});

/** The peak resident size of a process so far (Linux's VmHWM), in bytes. */
function peakResident(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) {
    throw new Error(`no VmHWM for process ${pid}`);
  }
  return Number(kb) * 1024;
}

describe('a large form through svc up (docs/design.md D31 "Forms")', () => {
  it('passes the rest on as it arrives: byte for byte, past the JSON limit, never held whole', async () => {
    const { url, up } = await upWithCommandNode();
    const send = (form: EncodedForm) => sendForm(url, authorized(), form);
    // A small one first wakes the node and runs the relay once, so the peak read next is the
    // gateway's own at rest, not a first start's.
    const small = await encodeForm([
      ['model', 'whisper-1'],
      ['file', new Blob([randomBytes(64 * 1024)], { type: 'audio/wav' })],
    ]);
    expect((await send(small)).status).toBe(200);
    const before = peakResident(up.pid);
    // 48 MiB: above the 32 MiB a JSON body may have.
    const size = 48 * 1024 * 1024;
    const big = await encodeForm([
      ['model', 'whisper-1'],
      ['file', new Blob([randomBytes(size)], { type: 'audio/wav' })],
    ]);
    const reply = await send(big);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual(arrivedIntact(big, 'stand in'));
    // Held whole, the body would raise the gateway's peak by twice its size (its chunks, then
    // their concatenation); streamed, by the socket reads not yet collected (a few tens of MB,
    // whatever the body's size). The body's size is a bound with a wide margin either way.
    const grew = peakResident(up.pid) - before;
    expect(grew).toBeLessThan(size);
    const record = JSON.parse(readFileSync(localNodeFile(up, 'whisper', 'engine.pid'), 'utf8')) as {
      pid: number;
    };
    killSurvivorsAfterTest([record.pid]);
    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
  });
});
