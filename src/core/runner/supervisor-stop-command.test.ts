/**
 * docs/design.md D31: a `PROVIDER command` engine is started as its COMMAND (`${PORT}` replaced,
 * the program looked up by name), checked on its HEALTH path, and stopped with its STOP
 * (`${PID}` replaced) in place of SIGTERM, bounded by the stop grace period. A fake engine; the
 * STOP runner is real in the last tests (a node one-liner), so its bound is real too.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { EngineSpec } from '../engines/engine-spec.ts';
import { createLogger } from '../logger.ts';
import { StateRecord } from '../state/record.ts';
import type { EngineProcess, EngineProcessOptions } from './engine-process.ts';
import { runStopCommand } from './stop-command.ts';
import { Supervisor } from './supervisor.ts';
import type { SupervisorEdges } from './supervisor-edges.ts';

const SPEC: EngineSpec = {
  runner: 'command',
  alias: 'whisper',
  port: 9321,
  command: {
    argv: ['whisper-server', '--port', '${PORT}'],
    health: '/ready',
    stop: ['docker', 'stop', 'svc-${PID}'],
  },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-stop-command-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function harness() {
  const seen: {
    started?: EngineProcessOptions;
    lookedUp?: string | undefined;
    health?: string;
    stops: { argv: readonly string[]; graceMs: number }[];
    terminated: boolean[];
  } = { stops: [], terminated: [] };
  let exit: (value: { code: number | null; signal: NodeJS.Signals | null }) => void = () =>
    undefined;
  const engine: EngineProcess = {
    pid: 777,
    watchdogPid: 776,
    startedAt: new Date(0),
    exited: new Promise((resolve) => {
      exit = resolve;
    }),
    stop: (_graceMs, terminate) => {
      seen.terminated.push(terminate !== undefined);
      terminate?.();
      exit({ code: 0, signal: null });
      return Promise.resolve('terminated');
    },
  };
  const edges: SupervisorEdges = {
    now: () => new Date(0),
    startEngine: async (options) => {
      seen.started = options;
      await options.answering?.();
      return engine;
    },
    locateBinary: (_runner, _path, program) => {
      seen.lookedUp = program;
      return `/usr/bin/${program ?? 'none'}`;
    },
    runStop: (argv, _env, graceMs) => {
      seen.stops.push({ argv, graceMs });
      return Promise.resolve({ ok: true });
    },
    answers: (health) => {
      seen.health = health.path;
      return Promise.resolve(true);
    },
    pidRecord: {
      write: () => Promise.resolve(),
      clear: () => Promise.resolve(),
      startTime: () => undefined,
    },
  };
  const record = new StateRecord();
  const supervisor = new Supervisor(
    {
      record,
      logger: createLogger('error', { write: () => undefined }),
      output: { kind: 'forward' },
      env: { PATH: '/usr/bin' },
      startWindowMs: 500,
      stopGraceMs: 4_000,
    },
    edges,
  );
  return { supervisor, record, seen };
}

describe('a PROVIDER command engine under the supervisor', () => {
  it('runs COMMAND with ${PORT} replaced, checks HEALTH, and reports the port as its endpoint', async () => {
    const h = harness();
    await h.supervisor.start({ spec: SPEC });
    expect(h.seen.lookedUp).toBe('whisper-server');
    expect(h.seen.started?.bin).toBe('/usr/bin/whisper-server');
    expect(h.seen.started?.args).toEqual(['--port', '9321']);
    expect(h.seen.health).toBe('/ready');
    const run = h.record.snapshot().run;
    expect(run?.runner).toBe('command');
    expect(run?.servedName).toBe('whisper');
    expect(run?.endpoint).toMatchObject({ port: 9321, loopbackOnly: true });
  });

  it('stops with STOP, ${PID} replaced, within the grace period, in place of SIGTERM', async () => {
    const h = harness();
    await h.supervisor.start({ spec: SPEC });
    await h.supervisor.stop();
    expect(h.seen.terminated).toEqual([true]);
    expect(h.seen.stops).toEqual([{ argv: ['docker', 'stop', 'svc-777'], graceMs: 4_000 }]);
    expect(h.record.snapshot().state).toBe('stopped');
  });

  it('signals the group as for any engine when there is no STOP', async () => {
    const { stop: _stop, ...command } = SPEC.command ?? { argv: [], health: '/' };
    const spec: EngineSpec = { ...SPEC, command };
    const h = harness();
    await h.supervisor.start({ spec });
    await h.supervisor.stop();
    expect(h.seen.terminated).toEqual([false]);
    expect(h.seen.stops).toEqual([]);
  });
});

describe('runStopCommand', () => {
  it('runs the argv without a shell, its output appended to the engine log', async () => {
    const log = join(dir, 'engine.log');
    const outcome = await runStopCommand(
      [process.execPath, '-e', 'console.log(process.argv[1])', 'a $HOME; b'],
      { PATH: process.env['PATH'] ?? '' },
      10_000,
      log,
    );
    expect(outcome).toEqual({ ok: true });
    expect(await readFile(log, 'utf8')).toBe('a $HOME; b\n');
  });

  it('reports a failed STOP, and kills one still running at the end of the grace period', async () => {
    const env = { PATH: process.env['PATH'] ?? '' };
    expect(
      await runStopCommand([process.execPath, '-e', 'process.exit(3)'], env, 10_000, undefined),
    ).toEqual({
      ok: false,
      reason: `${process.execPath} exited with status 3`,
    });
    expect(
      await runStopCommand(
        [process.execPath, '-e', 'setInterval(() => {}, 1000)'],
        env,
        200,
        undefined,
      ),
    ).toEqual({
      ok: false,
      reason: `${process.execPath} did not end within the stop grace period (200 ms)`,
    });
  });
});
