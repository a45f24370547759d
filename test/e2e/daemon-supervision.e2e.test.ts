/**
 * The daemon owns its engine's whole process tree, tracks readiness at start-up speed and explains
 * its failures (docs/daemon.md "How the engine's tree is owned"). Fake engines stand in for the
 * faults a real one cannot show on cue: ignoring SIGTERM, forking a SIGTERM-ignoring worker,
 * crashing with exit code 3, failing at start-up, leaking its key into its log.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import {
  alive,
  FAKE_BIN_DIR,
  freePort,
  recordOutput,
  startTestDaemon,
  type TestDaemon,
  transcript,
} from '../support/svc/daemon.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const TOKEN = 'supervision-api-token-5e21';
const KEY = 'supervision-engine-key-77aa';
/** The guarantee: every process of the group gone within 5 s of the daemon's SIGKILL. */
const TEARDOWN_MS = 5_000;
/** Daemon SIGKILL rounds, half with the real llama-server; ORPHAN_ROUNDS=20 for the full check. */
const ROUNDS = Number(process.env['ORPHAN_ROUNDS'] ?? 4);

let model: string;
beforeAll(async () => {
  model = await writeTinyModel(join(await mkdtemp(join(tmpdir(), 'svc-supervision-')), 't.gguf'));
});

const mtplx = (port: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  runner: 'mtplx',
  modelId: 'org/m',
  serveArgs: ['--host', '127.0.0.1', '--port', String(port)],
  ...extra,
});

const llama = (port: number): Record<string, unknown> => ({
  runner: 'llamacpp',
  modelId: model,
  contextSize: 256,
  serveArgs: ['--host', '127.0.0.1', '--port', String(port), '--threads', '1'],
});

/**
 * The engine's pid and, for a fork-child engine, its worker's pid: from the daemon log, and from
 * the engine log read until the worker's line is there (the engine writes it after it started).
 */
async function treeOf(node: TestDaemon, worker: boolean): Promise<number[]> {
  const [, engine = '0'] = await node.process.waitFor(/engine started .*pid=(\d+)/);
  const pids = [Number(engine)];
  if (worker) {
    const child = await eventually(
      async () =>
        /child pid (\d+)/.exec(String((await node.call('GET', '/v1/logs')).json['content'])),
      (match) => match !== null,
      "the worker's pid in the engine log",
    );
    pids.push(Number(child?.[1] ?? Number.NaN));
  }
  return pids;
}

function daemon(configDir: string, fake?: string): Promise<TestDaemon> {
  return startTestDaemon({
    configDir,
    token: TOKEN,
    path: fake === undefined ? [] : [FAKE_BIN_DIR],
    ...(fake === undefined ? {} : { env: { FAKE_ENGINE: fake } }),
  });
}

/** The parent PID of a live process, from /proc. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ')'.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** A process's state letter from /proc ('T': stopped by a signal). */
function stateOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

/** Waits (at most the guarantee's 5 s) until no process of `pids` is left. */
async function treeGone(pids: readonly number[]): Promise<void> {
  await eventually(
    () => Promise.resolve(pids.filter(alive)),
    (left) => left.length === 0,
    `every process of the engine tree (${pids.join(', ')}) gone after the daemon's SIGKILL`,
    { timeoutMs: TEARDOWN_MS },
  );
}

/** SIGKILL by PID whatever a failed test left behind. */
function cleanUp(pids: readonly number[]): void {
  for (const pid of pids.filter(alive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

describe('no process of the engine tree outlives the daemon', () => {
  it('kills an engine ignoring SIGTERM and its SIGTERM-ignoring worker within 5 s of SIGKILL', async () => {
    const node = await daemon(await tempDir(), 'ignore-sigterm,fork-child');
    await node.call('POST', '/v1/start', { body: mtplx(await freePort()) });
    const pids = await treeOf(node, true);
    try {
      expect(pids).toHaveLength(2);
      expect(pids.every(alive)).toBe(true);
      process.kill(node.process.pid, 'SIGKILL');
      await node.process.exited();
      recordOutput(node);
      await treeGone(pids);
    } finally {
      cleanUp(pids);
    }
  });

  it(
    `leaves nothing running after ${ROUNDS} daemon SIGKILLs, real and multi-process engines`,
    async () => {
      const left: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const real = round % 2 === 1;
        const node = await daemon(await tempDir(), real ? undefined : 'ignore-sigterm,fork-child');
        const reply = await node.call('POST', '/v1/start', {
          body: real ? llama(await freePort()) : mtplx(await freePort()),
        });
        expect(reply.status).toBe(200);
        const pids = await treeOf(node, !real);
        process.kill(node.process.pid, 'SIGKILL');
        await node.process.exited();
        recordOutput(node);
        await treeGone(pids).catch(() => undefined);
        left.push(...pids.filter(alive));
        cleanUp(pids);
      }
      expect(left).toEqual([]);
    },
    ROUNDS * 30_000,
  );

  it('a daemon restarted at once reaps the old group before answering, and takes the port', async () => {
    const configDir = await tempDir();
    const port = await freePort();
    const first = await daemon(configDir, 'ignore-sigterm,fork-child');
    expect((await first.call('POST', '/v1/start', { body: mtplx(port) })).status).toBe(200);
    const pids = await treeOf(first, true);
    // The engine's parent is its watchdog. It dies with the daemon here, so that only the new
    // daemon's reaping can end the SIGTERM-ignoring group, not the watchdog's own 3 s grace
    // (which a loaded machine may outlast while the new daemon starts). The daemon is stopped
    // first: a live daemon that sees its watchdog killed ends the group itself (engine-process.ts),
    // and would do so whenever the scheduler ran it between the two kills.
    const watchdog = parentOf(pids[0] ?? 0);
    try {
      process.kill(first.process.pid, 'SIGSTOP');
      await eventually(
        () => Promise.resolve(stateOf(first.process.pid)),
        (state) => state === 'T',
        `the first daemon (pid ${first.process.pid}) stopped`,
      );
      process.kill(watchdog, 'SIGKILL');
      process.kill(first.process.pid, 'SIGKILL');
      await first.process.exited();
      recordOutput(first);
      await eventually(
        () => Promise.resolve(alive(watchdog)),
        (running) => !running,
        `the watchdog (pid ${watchdog}) gone`,
      );
      expect(pids.filter(alive)).toEqual(pids);
      // Over the same config dir: the daemon reaps the group before it answers.
      const second = await daemon(configDir, 'ignore-sigterm');
      expect(pids.filter(alive)).toEqual([]);
      expect(second.process.stderr()).toMatch(
        new RegExp(`WARN {2}stopped an engine left running by a previous daemon pid=${pids[0]}`),
      );
      const started = await second.call('POST', '/v1/start');
      expect(started).toMatchObject({ status: 200, json: { state: 'running', engine: { port } } });
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      expect(await second.terminate()).toBe(0);
    } finally {
      cleanUp(pids);
    }
  });
});

describe('readiness at start-up speed', () => {
  it('flips to ready within 1 s of the engine answering its health check (default interval)', async () => {
    const node = await daemon(await tempDir(), 'slow-health:2500');
    const port = await freePort();
    await node.call('POST', '/v1/start', { body: mtplx(port) });
    expect((await node.call('GET', '/v1/status')).json['ready']).not.toBe('ready');
    let healthyAt = 0;
    let readyAt = 0;
    await eventually(
      async () => {
        if (healthyAt === 0) {
          const reply = await fetch(`http://127.0.0.1:${port}/health`);
          await reply.body?.cancel();
          healthyAt = reply.status === 200 ? Date.now() : 0;
        }
        if (readyAt === 0 && (await node.call('GET', '/v1/status')).json['ready'] === 'ready') {
          readyAt = Date.now();
        }
        return { healthyAt, readyAt };
      },
      (seen) => seen.healthyAt > 0 && seen.readyAt > 0,
      'the engine healthy and the status ready',
    );
    expect(readyAt - healthyAt).toBeLessThanOrEqual(1_000);
    expect((await node.call('GET', '/v1/metrics')).json['ready']).toBe('ready');
    expect(await node.terminate()).toBe(0);
  });
});

describe('failures that explain themselves', () => {
  it('keeps lastExit after a crash with exit code 3, the last line in logTail, secrets redacted', async () => {
    const node = await daemon(await tempDir(), 'crash-after:1000,echo-secrets');
    await node.call('POST', '/v1/start', {
      body: mtplx(await freePort(), { engineApiKey: KEY }),
    });
    const { lastExit } = (await eventually(
      async () => (await node.call('GET', '/v1/status')).json,
      (status) => status['state'] === 'crashed',
      'the status to say crashed',
    )) as { lastExit: { exitCode: number; at: string; logTail: string[] } };
    expect(lastExit.exitCode).toBe(3);
    expect(Date.parse(lastExit.at)).not.toBeNaN();
    expect(lastExit.logTail.at(-1)).toBe('fake-engine: crashing on purpose');
    expect(lastExit.logTail.length).toBeLessThanOrEqual(20);
    // The key is redacted; the API token never reached the engine at all.
    expect(lastExit.logTail).toContain('fake-engine: key=*** token=');
    // It stays until the next start, which clears it.
    expect((await node.call('POST', '/v1/stop')).json).toHaveProperty('lastExit');
    const restarted = await node.call('POST', '/v1/start', { body: mtplx(await freePort()) });
    expect(restarted.json).not.toHaveProperty('lastExit');
    expect(await node.terminate()).toBe(0);
  });

  it("answers a failed start with 400 quoting the engine's last line, logged at error", async () => {
    const node = await startTestDaemon({
      configDir: await tempDir(),
      token: TOKEN,
      path: [FAKE_BIN_DIR],
      args: ['--log-level', 'error'],
      env: { FAKE_ENGINE: 'echo-secrets,exit-now' },
    });
    const reply = await node.call('POST', '/v1/start', {
      body: mtplx(await freePort(), { engineApiKey: KEY }),
    });
    expect(reply.status).toBe(400);
    const error = String(reply.json['error']);
    expect(error).toContain('the engine exited during start-up (exit code 3)');
    const quoted = error.split('\n').slice(1);
    expect(quoted.length).toBeGreaterThan(0);
    expect(quoted.length).toBeLessThanOrEqual(10);
    expect(quoted.at(-1)).toBe('  fake-engine: failing on purpose');
    expect(quoted).toContain('  fake-engine: key=*** token=');
    expect(node.process.stderr()).toMatch(
      /ERROR engine start failed .*the engine exited during start-up/,
    );
    // The log line carries the reason, never the engine's output.
    expect(node.process.stderr()).not.toContain('failing on purpose');
    expect(await node.terminate()).toBe(0);
  });

  it('refuses a missing model file before spawning anything, naming it', async () => {
    const node = await daemon(await tempDir());
    const missing = join(await tempDir(), 'absent.gguf');
    const reply = await node.call('POST', '/v1/start', {
      body: { ...llama(await freePort()), modelId: missing },
    });
    expect(reply.status).toBe(400);
    expect(reply.json['error']).toBe(`the model file ${missing} does not exist`);
    expect(node.process.stderr()).not.toMatch(/INFO {2}starting engine/);
    expect(await node.terminate()).toBe(0);
  });

  it('never printed or replied the engine key or the API token', () => {
    const all = transcript.join('\n');
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(TOKEN);
  });
});
