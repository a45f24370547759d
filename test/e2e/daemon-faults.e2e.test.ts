/**
 * Faults a real engine cannot be made to show on cue, with the fake engine under the real
 * engines' names (test/fixtures/bin first on the daemon's PATH): a crash, an engine that ignores
 * SIGTERM, a start failure, a missing binary, and the daemon dying under a running engine.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../support/prerequisites/engines.ts';
import {
  alive,
  FAKE_BIN_DIR,
  freePort,
  recordOutput,
  startTestDaemon,
  transcript,
} from '../support/svc/daemon.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const KEY = 'fault-engine-key-44c1';

function enginePid(output: string): number {
  const matches = [...output.matchAll(/engine started .*pid=(\d+)/g)];
  return Number(matches.at(-1)?.[1]);
}

const mtplx = (port: number): Record<string, unknown> => ({
  runner: 'mtplx',
  modelId: 'org/m',
  serveArgs: ['--port', String(port)],
});

describe('svc daemon with fake engines', () => {
  it('marks an engine that exits on its own as crashed and never restarts it', async () => {
    const node = await startTestDaemon({
      configDir: await tempDir(),
      path: [FAKE_BIN_DIR],
      env: { FAKE_ENGINE: 'crash-after:800' },
    });
    const started = await node.call('POST', '/v1/start', { body: mtplx(await freePort()) });
    expect(started.json['state']).toBe('running');
    const status = await eventually(
      async () => (await node.call('GET', '/v1/status')).json,
      (reply) => reply['state'] === 'crashed',
      'the status to say crashed',
    );
    expect(status).toMatchObject({ state: 'crashed', runner: 'mtplx', uptimeSeconds: 0 });
    expect(status).not.toHaveProperty('engine');
    await node.process.waitFor(/ERROR engine crashed exit="exit code 3"/);
    // The log holds what the engine wrote, stdout and stderr alike.
    const logs = await node.call('GET', '/v1/logs');
    expect(logs.json['content']).toContain('fake-engine argv:');
    expect(logs.json['content']).toContain('crashing on purpose');
    // Stop after a crash succeeds and changes nothing.
    expect((await node.call('POST', '/v1/stop')).json['state']).toBe('crashed');
    expect(await node.terminate()).toBe(0);
    // Never restarted, over the daemon's whole life after the crash: its exit bounds the check,
    // not a sleep. (The supervisor has no restart path at all: docs/design.md D7.)
    expect(node.process.stderr().match(/starting engine/g)).toHaveLength(1);
    expect(node.process.stderr()).not.toMatch(/engine started[\s\S]*engine started/);
  });

  it('starts exactly one engine when starts arrive at the same time', async () => {
    const node = await startTestDaemon({ configDir: await tempDir(), path: [FAKE_BIN_DIR] });
    const port = await freePort();
    const replies = await Promise.all(
      [KEY, 'other-key', undefined].map((engineApiKey) =>
        node.call('POST', '/v1/start', {
          body: { ...mtplx(port), ...(engineApiKey === undefined ? {} : { engineApiKey }) },
        }),
      ),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409, 409]);
    expect(node.process.stderr().match(/INFO {2}engine started/g)).toHaveLength(1);
    expect(await node.terminate()).toBe(0);
  });

  it('escalates to SIGKILL when the engine ignores SIGTERM, logging it at warn', async () => {
    const node = await startTestDaemon({
      configDir: await tempDir(),
      path: [FAKE_BIN_DIR],
      env: { FAKE_ENGINE: 'ignore-sigterm', SVC_STOP_GRACE_SECONDS: '0.5' },
    });
    await node.call('POST', '/v1/start', { body: mtplx(await freePort()) });
    const pid = enginePid(node.process.output());
    const stopped = await node.call('POST', '/v1/stop');
    expect(stopped).toMatchObject({ status: 200, json: { state: 'stopped' } });
    expect(alive(pid)).toBe(false);
    expect(node.process.stderr()).toMatch(
      /WARN {2}engine did not exit within the grace period; killed/,
    );
    expect(await node.terminate()).toBe(0);
  });

  it('answers 400 when the engine fails at start-up, storing nothing it carried', async () => {
    const configDir = await tempDir();
    const node = await startTestDaemon({
      configDir,
      path: [FAKE_BIN_DIR],
      env: { FAKE_ENGINE: 'exit-now' },
    });
    const reply = await node.call('POST', '/v1/start', {
      body: { ...mtplx(await freePort()), engineApiKey: KEY },
    });
    expect(reply.status).toBe(400);
    expect(reply.json['error']).toContain('the engine exited during start-up (exit code 3)');
    await expect(readFile(join(configDir, 'daemon', 'deploy-config.json'))).rejects.toThrow();
    await expect(readFile(join(configDir, 'daemon', 'engine-api-key'))).rejects.toThrow();
    await expect(readFile(join(configDir, 'daemon', 'engine-api-key.run'))).rejects.toThrow();
    expect((await node.call('GET', '/v1/status')).json['state']).toBe('idle');
    expect(node.process.stderr()).toMatch(/ERROR engine start failed/);
    expect(await node.terminate()).toBe(0);
  });

  it('refuses a runner whose binary this host lacks, on push and on start (docs/design.md D6)', async () => {
    const node = await startTestDaemon({
      configDir: await tempDir(),
      env: { PATH: '/usr/bin:/bin' },
    });
    const body = { runner: 'vllm', modelId: 'org/m' };
    for (const [method, path] of [
      ['PUT', '/v1/deploy-config'],
      ['POST', '/v1/start'],
    ] as const) {
      const reply = await node.call(method, path, { body });
      expect(reply.status).toBe(400);
      expect(reply.json['error']).toBe(
        'runner vllm cannot be served on this host: vllm not found on PATH',
      );
    }
    expect(await node.terminate()).toBe(0);
  });

  it('refuses a key for vLLM, which cannot read one from a file', async () => {
    const node = await startTestDaemon({ configDir: await tempDir(), path: [FAKE_BIN_DIR] });
    const reply = await node.call('POST', '/v1/start', {
      body: { runner: 'vllm', modelId: 'org/m', engineApiKey: KEY },
    });
    expect(reply.status).toBe(400);
    expect(reply.json['error']).toContain('vllm cannot be gated with an API key');
    expect(await node.terminate()).toBe(0);
  });

  it('leaves no engine behind when the daemon is killed with SIGKILL (the engine watchdog)', async () => {
    const node = await startTestDaemon({ configDir: await tempDir(), path: [FAKE_BIN_DIR] });
    await node.call('POST', '/v1/start', { body: mtplx(await freePort()) });
    const pid = enginePid(node.process.output());
    expect(alive(pid)).toBe(true);
    process.kill(node.process.pid, 'SIGKILL');
    await node.process.exited();
    recordOutput(node);
    await eventually(
      () => Promise.resolve(alive(pid)),
      (running) => !running,
      `the engine (pid ${pid}) gone after its daemon's SIGKILL`,
    );
  });

  it('stops an engine a previous daemon left running, found through its pid record', async () => {
    const configDir = await tempDir();
    // An engine whose daemon is gone without a parent-death signal: started here, detached.
    const bin = join(REPO_ROOT, 'test', 'fixtures', 'bin', 'mtplx');
    const orphan = spawn(bin, ['serve', '--port', String(await freePort())], {
      detached: true,
      stdio: 'ignore',
    });
    const pid = orphan.pid ?? 0;
    orphan.unref();
    try {
      await eventually(
        () => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
        (commandLine) => commandLine.includes('fake-engine'),
        'the orphan engine running the fake engine',
      );
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(configDir, 'daemon'), { recursive: true });
      await writeFile(
        join(configDir, 'daemon', 'engine.pid'),
        JSON.stringify({ pid, bin: 'fake-engine.mjs', startedAt: new Date().toISOString() }),
      );
      // The daemon reaps before it listens: by the time it answers, the orphan is gone.
      const node = await startTestDaemon({ configDir, path: [FAKE_BIN_DIR] });
      expect(alive(pid)).toBe(false);
      expect(node.process.stderr()).toMatch(
        new RegExp(`WARN {2}stopped an engine left running by a previous daemon pid=${pid}`),
      );
      await expect(readFile(join(configDir, 'daemon', 'engine.pid'))).rejects.toThrow();
      expect(await node.terminate()).toBe(0);
    } finally {
      if (alive(pid)) {
        process.kill(pid, 'SIGKILL');
      }
    }
  });

  it('never kills a process whose PID was recycled: the record must match its command line', async () => {
    const configDir = await tempDir();
    const bystander = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = bystander.pid ?? 0;
    try {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(configDir, 'daemon'), { recursive: true });
      await writeFile(
        join(configDir, 'daemon', 'engine.pid'),
        JSON.stringify({ pid, bin: 'llama-server', startedAt: '' }),
      );
      const node = await startTestDaemon({ configDir });
      expect(alive(pid)).toBe(true);
      expect(await node.terminate()).toBe(0);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('never printed or replied the engine key', () => {
    expect(transcript.join('\n')).not.toContain(KEY);
  });
});
