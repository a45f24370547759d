/**
 * The engine process against a fake watchdog and a fake clock: the start window (spec §3), and a
 * stop that sends SIGTERM, then SIGKILL once the grace period has passed (docs/design.md D10). No
 * process is started and no time is waited for.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { FakeClock } from '../../../test/support/time/fake-clock.ts';
import { track } from '../../../test/support/time/track.ts';
import {
  type EngineProcess,
  type EngineProcessEdges,
  EngineStartError,
  startEngineProcess,
} from './engine-process.ts';
import { encodeEvent, type WatchdogEvent } from './engine-watchdog.ts';

const ENGINE_PID = 4321;
const GRACE_MS = 10_000;

/** A watchdog as svc sees it: a status pipe on fd 3 and its own exit. */
class FakeWatchdog extends EventEmitter {
  readonly pid = 4320;
  readonly stdin = new PassThrough();
  readonly stdout = null;
  readonly stderr = null;
  readonly status = new PassThrough();
  readonly stdio = [this.stdin, null, null, this.status];

  report(event: WatchdogEvent): void {
    this.status.write(encodeEvent(event));
  }

  /** The group is empty: the watchdog closes its status pipe and exits. */
  end(): void {
    this.status.end();
    this.status.once('close', () => this.emit('exit', 0, null));
  }
}

/**
 * How the engine answers a signal to its group: `exits` ends it (the watchdog reports the exit and
 * ends), `ignores` leaves it running.
 */
type Reaction = 'exits' | 'ignores';

function harness(reactions: Partial<Record<NodeJS.Signals, Reaction>> = {}) {
  const clock = new FakeClock();
  const watchdog = new FakeWatchdog();
  const signals: string[] = [];
  const spawned: (readonly string[])[] = [];
  const edges: EngineProcessEdges = {
    spawnWatchdog: (argv) => {
      spawned.push(argv);
      return watchdog;
    },
    signalGroup: (pgid, signal) => {
      signals.push(`${signal}:${pgid}`);
      if ((reactions[signal] ?? 'exits') === 'exits') {
        watchdog.report({ event: 'exit', code: null, signal });
        watchdog.end();
      }
    },
    now: clock.now,
    setTimer: clock.setTimer,
  };
  const start = (startWindowMs = 500): Promise<EngineProcess> =>
    startEngineProcess(
      {
        bin: '/opt/engines/llama-server',
        args: ['-m', '/models/tiny.gguf'],
        env: {},
        output: { kind: 'forward' },
        startWindowMs,
      },
      edges,
    );
  return { clock, watchdog, signals, spawned, start };
}

/** Starts the engine and lets the start window pass. */
async function started(h: ReturnType<typeof harness>): Promise<EngineProcess> {
  const starting = track(h.start());
  h.watchdog.report({ event: 'spawned', pid: ENGINE_PID });
  await h.clock.advance(500);
  if (starting.value === undefined) {
    throw new Error('the engine did not start');
  }
  return starting.value;
}

describe('engine process start', () => {
  it('runs the engine under the watchdog and is started once the window has passed', async () => {
    const h = harness();
    const starting = track(h.start());
    h.watchdog.report({ event: 'spawned', pid: ENGINE_PID });
    await h.clock.advance(499);
    expect(starting.settled).toBe(false);
    await h.clock.advance(1);
    expect(starting.value?.pid).toBe(ENGINE_PID);
    expect(h.spawned).toEqual([['/opt/engines/llama-server', '-m', '/models/tiny.gguf']]);
  });

  it('fails the start when the engine exits within the window, keeping how it exited', async () => {
    const h = harness();
    const starting = track(h.start());
    h.watchdog.report({ event: 'spawned', pid: ENGINE_PID });
    await h.clock.advance(200);
    h.watchdog.report({ event: 'exit', code: 1, signal: null });
    h.watchdog.end();
    await h.clock.advance(300);
    const error = starting.error;
    expect(error).toBeInstanceOf(EngineStartError);
    expect((error as EngineStartError).message).toBe(
      'the engine exited during start-up (exit code 1)',
    );
    expect((error as EngineStartError).exit).toEqual({ code: 1, signal: null });
  });

  it('fails the start naming the binary when the watchdog cannot spawn it', async () => {
    const h = harness();
    const starting = track(h.start());
    h.watchdog.report({ event: 'error', message: 'spawn /opt/engines/llama-server EACCES' });
    h.watchdog.end();
    await h.clock.advance(500);
    expect(starting.error).toBeInstanceOf(EngineStartError);
    expect((starting.error as Error).message).toBe(
      'could not start /opt/engines/llama-server: spawn /opt/engines/llama-server EACCES',
    );
  });
});

describe('engine process stop (docs/design.md D10)', () => {
  it('sends SIGTERM only, when the engine ends within the grace period', async () => {
    const h = harness({ SIGTERM: 'exits' });
    const engine = await started(h);
    const stopping = track(engine.stop(GRACE_MS));
    const exited = track(engine.exited);
    await h.clock.settle();
    expect(stopping.value).toBe('terminated');
    expect(exited.value).toEqual({ code: null, signal: 'SIGTERM' });
    // No grace timer left behind: a pending one would hold serve's event loop open.
    expect(h.clock.pending).toBe(0);
    await h.clock.advance(GRACE_MS);
    expect(h.signals).toEqual([`SIGTERM:${ENGINE_PID}`]);
  });

  it('escalates to SIGKILL once the grace period has passed, when the engine ignores SIGTERM', async () => {
    const h = harness({ SIGTERM: 'ignores', SIGKILL: 'exits' });
    const engine = await started(h);
    const stopping = track(engine.stop(GRACE_MS));
    const exited = track(engine.exited);
    await h.clock.advance(GRACE_MS - 1);
    expect(h.signals).toEqual([`SIGTERM:${ENGINE_PID}`]);
    expect(stopping.settled).toBe(false);

    await h.clock.advance(1);
    expect(h.signals).toEqual([`SIGTERM:${ENGINE_PID}`, `SIGKILL:${ENGINE_PID}`]);
    expect(stopping.value).toBe('killed');
    expect(exited.value).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('reports a group that survives SIGKILL as stuck', async () => {
    const h = harness({ SIGTERM: 'ignores', SIGKILL: 'ignores' });
    const engine = await started(h);
    const stopping = track(engine.stop(GRACE_MS));
    await h.clock.advance(GRACE_MS + 5_000);
    expect(stopping.value).toBe('stuck');
  });

  it('kills the group when the watchdog itself dies without reporting the exit', async () => {
    const h = harness({ SIGKILL: 'ignores' });
    const engine = await started(h);
    const exited = track(engine.exited);
    h.watchdog.end();
    await h.clock.settle();
    expect(exited.value).toEqual({ code: 0, signal: null });
    expect(h.signals).toEqual([`SIGKILL:${ENGINE_PID}`]);
  });
});
