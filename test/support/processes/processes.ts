/**
 * Child processes for tests. Every process started here is killed by its PID when the test that
 * started it finishes, pass or fail (one started in sharedByFile(): when the file's tests end);
 * nothing is ever killed by name.
 */
import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';

import { atEnd } from './cleanup.ts';

export interface TestProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything written to stdout and stderr so far, interleaved as it arrived. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in the output, waiting up to `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited(): Promise<number | NodeJS.Signals>;
  /** SIGKILL by PID, then waits for the exit. */
  kill(): Promise<void>;
}

export function startProcess(
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
): TestProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (child.pid === undefined) {
    throw new Error(`could not start ${command}`);
  }
  const pid = child.pid;
  let output = '';
  const streams = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  const collect =
    (stream: keyof typeof streams) =>
    (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      streams[stream] += text;
      output += text;
      listeners.forEach((listener) => {
        listener();
      });
    };
  child.stdout?.on('data', collect('stdout'));
  child.stderr?.on('data', collect('stderr'));

  // 'close' rather than 'exit': by then stdout and stderr have been read to the end.
  const exit = new Promise<number | NodeJS.Signals>((resolve) => {
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      resolve(code ?? signal ?? 'SIGKILL');
    });
  });

  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone between the check and the kill
      }
      await exit;
    }
  };
  atEnd(kill);

  return {
    child,
    pid,
    output: () => output,
    stdout: () => streams.stdout,
    stderr: () => streams.stderr,
    exited: () => exit,
    kill,
    waitFor: (pattern, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const match = pattern.exec(output);
          if (match !== null) {
            cleanup();
            resolve(match);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`timed out after ${timeoutMs} ms waiting for ${pattern}; output:\n${output}`),
          );
        }, timeoutMs);
        const onExit = (): void => {
          if (!check()) {
            cleanup();
            reject(new Error(`process exited before printing ${pattern}; output:\n${output}`));
          }
        };
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('close', onExit);
        };
        listeners.add(check);
        child.once('close', onExit);
        check();
      }),
  };
}

/** Runs a command to completion and returns its status and output (for short CLI calls). */
export async function runToEnd(
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
): Promise<{ status: number | NodeJS.Signals; stdout: string; stderr: string }> {
  const started = startProcess(command, args, options);
  const status = await started.exited();
  return { status, stdout: started.stdout(), stderr: started.stderr() };
}
