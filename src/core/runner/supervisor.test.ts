/**
 * The supervisor's rules against a fake engine: an unprompted exit is a crash, kept with its exit
 * code or signal and its last lines (docs/design.md D7, D23); a failed start quotes the engine's
 * last lines and changes nothing (spec §3); a stop escalates to SIGKILL after the grace period
 * (docs/design.md D10) and is still a stop. The engine log is a real file in a temp dir; no process
 * is started and no time is waited for.
 */
import { EventEmitter } from 'node:events';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FakeClock } from '../../../test/support/time/fake-clock.ts';
import type { EngineSpec } from '../engines/engine-spec.ts';
import { SvcError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { StateRecord } from '../state/record.ts';
import {
  type EngineExit,
  type EngineOutput,
  type EngineProcess,
  EngineStartError,
  startEngineProcess,
} from './engine-process.ts';
import { encodeEvent } from './engine-watchdog.ts';
import type { PidRecord } from './pid-record.ts';
import { Supervisor } from './supervisor.ts';
import type { SupervisorEdges } from './supervisor-edges.ts';

const SPEC: EngineSpec = { runner: 'llamacpp', model: 'org/tiny-GGUF' };
const TOKEN = 'api-token-123';
const AT = new Date('2025-01-01T12:00:00.000Z');
const GRACE_MS = 10_000;

let dir: string;
let logs = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-supervisor-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A log that already holds an earlier run's lines, which nothing may quote. */
async function logWithEarlierRun(): Promise<string> {
  logs += 1;
  const path = join(dir, `engine-${logs}.log`);
  await writeFile(path, 'an earlier run\nits last line\n');
  return path;
}

/** An engine the fake start hands out; it exits when the test says so. */
function fakeEngine(pid: number): { process: EngineProcess; exit(exit: EngineExit): void } {
  let exit: (value: EngineExit) => void = () => undefined;
  const exited = new Promise<EngineExit>((resolve) => {
    exit = resolve;
  });
  const process: EngineProcess = {
    pid,
    watchdogPid: pid - 1,
    startedAt: AT,
    exited,
    stop: () => Promise.reject(new Error('this test stops nothing')),
  };
  return { process, exit };
}

function harness(output: EngineOutput, startEngine: SupervisorEdges['startEngine']) {
  const lines: string[] = [];
  const pidRecords = new Map<string, PidRecord>();
  const record = new StateRecord();
  const pidPath = join(dir, 'engine.pid');
  let heard: (value: { exit: EngineExit; requested: boolean }) => void = () => undefined;
  const exitHeard = new Promise<{ exit: EngineExit; requested: boolean }>((resolve) => {
    heard = resolve;
  });
  const supervisor = new Supervisor(
    {
      record,
      logger: createLogger('debug', { write: (line) => lines.push(line) }),
      output,
      pidPath,
      env: { PATH: '/opt/engines', SVC_API_TOKEN: TOKEN },
      startWindowMs: 500,
      stopGraceMs: GRACE_MS,
      secrets: [TOKEN],
      onExit: (exit, requested) => {
        heard({ exit, requested });
      },
    },
    {
      now: () => AT,
      startEngine,
      locateBinary: () => '/opt/engines/llama-server',
      runStop: () => Promise.resolve({ ok: true }),
      answers: () => Promise.resolve(true),
      pidRecord: {
        write: (path, value) => {
          pidRecords.set(path, value);
          return Promise.resolve();
        },
        clear: (path) => {
          pidRecords.delete(path);
          return Promise.resolve();
        },
        startTime: () => 777,
      },
    },
  );
  return { supervisor, record, lines, pidRecords, pidPath, exitHeard };
}

describe('Supervisor crash recording (docs/design.md D7)', () => {
  it('records an engine that exits on its own as crashed, with its exit code and last lines', async () => {
    const path = await logWithEarlierRun();
    const engine = fakeEngine(4321);
    const h = harness({ kind: 'log', path }, async () => {
      await appendFile(path, 'server listening\n');
      return engine.process;
    });
    await h.supervisor.start({ spec: SPEC });
    expect(h.record.snapshot().state).toBe('running');
    expect(h.pidRecords.get(h.pidPath)).toMatchObject({ pid: 4321, startTime: 777 });

    await appendFile(path, `CUDA error: out of memory (token ${TOKEN})\n`);
    engine.exit({ code: 3, signal: null });
    expect(await h.exitHeard).toEqual({ exit: { code: 3, signal: null }, requested: false });
    const snapshot = h.record.snapshot();
    expect(snapshot.state).toBe('crashed');
    expect(snapshot.lastExit).toEqual({
      exitCode: 3,
      at: AT.toISOString(),
      logTail: ['server listening', 'CUDA error: out of memory (token ***)'],
    });
    expect(snapshot.lifetime).toMatchObject({ crashes: 1, lastExitCode: 3 });
    expect(h.pidRecords.has(h.pidPath)).toBe(false);
    expect(h.lines.join('\n')).toMatch(/engine crashed.*exit code 3/);
  });

  it('records the signal that ended it, and no exit code', async () => {
    const engine = fakeEngine(4321);
    const h = harness({ kind: 'forward' }, () => Promise.resolve(engine.process));
    await h.supervisor.start({ spec: SPEC });
    engine.exit({ code: null, signal: 'SIGSEGV' });
    await h.exitHeard;
    const snapshot = h.record.snapshot();
    expect(snapshot.state).toBe('crashed');
    expect(snapshot.lastExit).toEqual({ signal: 'SIGSEGV', at: AT.toISOString(), logTail: [] });
    expect(snapshot.lifetime.lastExitCode).toBeUndefined();
  });

  it('counts even a clean exit 0 it did not ask for as a crash', async () => {
    const engine = fakeEngine(4321);
    const h = harness({ kind: 'forward' }, () => Promise.resolve(engine.process));
    await h.supervisor.start({ spec: SPEC });
    engine.exit({ code: 0, signal: null });
    await h.exitHeard;
    expect(h.record.snapshot().state).toBe('crashed');
    expect(h.record.snapshot().lastExit?.exitCode).toBe(0);
  });
});

describe('Supervisor start failure (spec §3)', () => {
  it("quotes this run's last log lines, redacted, and changes nothing", async () => {
    const path = await logWithEarlierRun();
    let committed = false;
    const h = harness({ kind: 'log', path }, async () => {
      await appendFile(path, 'loading model\nerror: key engine-key-9 rejected\nfatal: bye\n');
      throw new EngineStartError('the engine exited during start-up (exit code 1)', {
        code: 1,
        signal: null,
      });
    });
    const error = await h.supervisor
      .start({
        spec: SPEC,
        secrets: ['engine-key-9'],
        commit: () => {
          committed = true;
          return Promise.resolve();
        },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).code).toBe('ERR_ENGINE_START_FAILED');
    expect((error as SvcError).message).toBe(
      [
        "the engine exited during start-up (exit code 1); the engine's last log lines:",
        '  loading model',
        '  error: key *** rejected',
        '  fatal: bye',
      ].join('\n'),
    );
    expect(h.record.snapshot().state).toBe('idle');
    expect(committed).toBe(false);
    expect(h.pidRecords.size).toBe(0);
    expect(h.supervisor.running).toBe(false);
  });

  it('says so when the engine wrote nothing', async () => {
    const path = await logWithEarlierRun();
    const h = harness({ kind: 'log', path }, () =>
      Promise.reject(new EngineStartError('could not start /opt/engines/llama-server: EACCES')),
    );
    await expect(h.supervisor.start({ spec: SPEC })).rejects.toThrow(
      'could not start /opt/engines/llama-server: EACCES; the engine wrote nothing to its log',
    );
  });

  it("gives the reason alone when the output went to svc's own stdio: it is on screen already", async () => {
    const path = await logWithEarlierRun();
    const shown: EngineOutput = {
      kind: 'log+forward',
      path,
      stdout: new PassThrough(),
      stderr: new PassThrough(),
    };
    const h = harness(shown, async () => {
      await appendFile(path, 'fatal: bye\n');
      throw new EngineStartError('the engine exited during start-up (exit code 1)', {
        code: 1,
        signal: null,
      });
    });
    const error = await h.supervisor.start({ spec: SPEC }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('the engine exited during start-up (exit code 1)');
  });
});

describe('Supervisor stop (docs/design.md D10)', () => {
  it('escalates to SIGKILL after the grace period, and records a stop, not a crash', async () => {
    // The real engine process over a fake watchdog that ignores SIGTERM.
    const clock = new FakeClock();
    const status = new PassThrough();
    const watchdog = Object.assign(new EventEmitter(), {
      pid: 4320,
      stdin: new PassThrough(),
      stdout: null,
      stderr: null,
      stdio: [null, null, null, status],
    });
    const signals: string[] = [];
    const h = harness({ kind: 'forward' }, (options) =>
      startEngineProcess(options, {
        spawnWatchdog: () => {
          queueMicrotask(() => status.write(encodeEvent({ event: 'spawned', pid: 4321 })));
          return watchdog;
        },
        signalGroup: (pgid, signal) => {
          signals.push(signal);
          if (signal === 'SIGKILL') {
            status.end(encodeEvent({ event: 'exit', code: null, signal }));
            status.once('close', () => watchdog.emit('exit', 0, null));
          }
        },
        now: clock.now,
        setTimer: clock.setTimer,
      }),
    );
    let started = false;
    void h.supervisor.start({ spec: SPEC }).then(() => {
      started = true;
    });
    // The health check answers at the first probe of the start window.
    await clock.advance(100);
    expect(started).toBe(true);
    expect(h.record.snapshot().state).toBe('running');

    let stopped = false;
    void h.supervisor.stop().then(() => {
      stopped = true;
    });
    await clock.advance(GRACE_MS - 1);
    expect(signals).toEqual(['SIGTERM']);
    expect(stopped).toBe(false);
    await clock.advance(1);
    expect(stopped).toBe(true);
    expect(signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(h.record.snapshot().state).toBe('stopped');
    expect(h.record.snapshot().lifetime.crashes).toBe(0);
    expect(await h.exitHeard).toEqual({ exit: { code: null, signal: 'SIGKILL' }, requested: true });
    expect(h.lines.join('\n')).toMatch(/engine did not exit within the grace period; killed/);
  });
});

describe('Supervisor slots (docs/design.md D25)', () => {
  it('records the slots the engine was started with: the last in its argv, verbatim args too', async () => {
    const engine = fakeEngine(4400);
    const h = harness({ kind: 'log', path: await logWithEarlierRun() }, () =>
      Promise.resolve(engine.process),
    );
    await h.supervisor.start({ spec: { ...SPEC, parallel: 2, extraArgs: ['-np', '3'] } });
    expect(h.record.snapshot().run?.slots).toBe(3);
  });
});
