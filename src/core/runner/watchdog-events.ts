/**
 * The engine watchdog (engine-watchdog.ts) as svc sees it: its status pipe's events and its own
 * end, as promises. The engine's exit settles when the watchdog has ended, that is once the whole
 * group is gone, so "stopped" or "crashed" always means nothing of the engine is left (its port
 * and GPU memory are free).
 */
import type { Readable } from 'node:stream';

import { describeExit, type EngineExit } from './engine-exit.ts';
import { decodeEvents, type WatchdogEvent } from './engine-watchdog.ts';

/** What svc uses of the watchdog's ChildProcess (a fake one stands in for it in unit tests). */
export interface WatchdogChild {
  readonly pid?: number | undefined;
  /** The lifeline: EOF tells the watchdog svc is gone. */
  readonly stdin: { destroy(): unknown } | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /** fd 3 is the watchdog's status pipe. */
  readonly stdio: readonly unknown[];
  once(event: 'error', listener: (error: Error) => void): unknown;
  once(
    event: 'exit' | 'close',
    listener: (code: number | null, signal: NodeJS.Signals | null) => void,
  ): unknown;
}

export interface WatchedWatchdog {
  /** The first of `spawned` and `error`. */
  readonly spawned: Promise<{ pid: number } | { error: string }>;
  /** The engine's own exit as soon as the watchdog reports it (the start window needs it fast). */
  readonly engineExited: Promise<EngineExit>;
  /** The engine's exit once the watchdog has ended (the group is empty). */
  readonly exited: Promise<EngineExit>;
  /** The watchdog has ended and every event it sent has been read. */
  readonly closed: Promise<void>;
  readonly exitReported: () => boolean;
}

export function watchWatchdog(child: WatchdogChild): WatchedWatchdog {
  let reported: EngineExit | undefined;
  let onReported: (exit: EngineExit) => void = () => undefined;
  const engineExited = new Promise<EngineExit>((resolve) => {
    onReported = resolve;
  });
  let onSpawned: (value: { pid: number } | { error: string }) => void = () => undefined;
  const spawned = new Promise<{ pid: number } | { error: string }>((resolve) => {
    onSpawned = resolve;
  });
  const handle = (event: WatchdogEvent): void => {
    if (event.event === 'spawned') {
      onSpawned({ pid: event.pid });
    } else if (event.event === 'error') {
      onSpawned({ error: event.message });
    } else {
      reported = { code: event.code, signal: event.signal as NodeJS.Signals | null };
      onReported(reported);
    }
  };
  let buffered = '';
  const status = (child.stdio[3] ?? null) as Readable | null;
  status?.on('data', (chunk: Buffer) => {
    const { events, rest } = decodeEvents(buffered + chunk.toString('utf8'));
    buffered = rest;
    events.forEach(handle);
  });
  // Only the watchdog holds the status pipe, so its end means every event has been read.
  const statusRead = new Promise<void>((resolve) => {
    if (status === null) {
      resolve();
      return;
    }
    status.once('close', resolve);
    status.once('error', () => {
      resolve();
    });
  });
  let onExit: (exit: EngineExit) => void = () => undefined;
  const exited = new Promise<EngineExit>((resolve) => {
    onExit = resolve;
  });
  const closed = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      onSpawned({ error: error.message });
      resolve();
    });
    child.once('exit', (code, signal) => {
      void statusRead.then(() => {
        // Settles nothing already settled. Without a reported exit the watchdog itself was
        // killed; its own end stands in.
        onSpawned({ error: `the engine watchdog ended (${describeExit({ code, signal })})` });
        onExit(reported ?? { code, signal });
        onReported(reported ?? { code, signal });
        resolve();
      });
    });
  });
  return { spawned, engineExited, exited, closed, exitReported: () => reported !== undefined };
}
