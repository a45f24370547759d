/**
 * What a node's wake or sleep command touches outside the runner (docs/design.md D26): the process
 * start, the group signal, the clock and the timer. Injected, the real ones by default, so the
 * runner's time limit, kill escalation, coalescing and environment have unit tests without
 * processes.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

import { type Clock, wallClock } from '../../core/clock.ts';
import { signalGroup } from '../../core/runner/process-group.ts';

/** What the runner uses of a ChildProcess (a fake one stands in for it in unit tests). */
export interface CommandChild {
  readonly pid?: number | undefined;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  once(event: 'error', listener: (error: Error) => void): unknown;
  once(
    event: 'exit' | 'close',
    listener: (code: number | null, signal: NodeJS.Signals | null) => void,
  ): unknown;
}

export interface CommandSpawnOptions {
  readonly env: Readonly<Record<string, string>>;
}

export interface NodeCommandEdges {
  /**
   * Starts `file` with `args` exactly as given: no shell, so nothing in them is expanded, and in
   * a session and process group of its own, so the time limit can end everything it started.
   */
  readonly spawn: (
    file: string,
    args: readonly string[],
    options: CommandSpawnOptions,
  ) => CommandChild;
  readonly signalGroup: (pgid: number, signal: NodeJS.Signals) => void;
  /** Milliseconds since the epoch. */
  readonly now: Clock;
  /** Calls `callback` after `ms`; the returned function cancels it. */
  readonly setTimer: (callback: () => void, ms: number) => () => void;
}

export const NODE_COMMAND_EDGES: NodeCommandEdges = {
  spawn: (file, args, options) =>
    spawn(file, [...args], {
      shell: false,
      detached: true,
      // No stdin: a command that asks a question (an ssh host-key prompt) fails instead of hanging.
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...options.env },
      windowsHide: true,
    }),
  signalGroup: (pgid, signal) => {
    signalGroup(pgid, signal);
  },
  now: wallClock,
  setTimer: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    return () => {
      clearTimeout(timer);
    };
  },
};
