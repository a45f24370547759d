/**
 * A real terminal for end-to-end tests of the serve view: a private tmux server (its own socket,
 * never the user's), one session of a fixed size running a command, capture-pane to read the
 * screen and send-keys to type. The session's processes are killed by PID when the test ends.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { onTestFinished } from 'vitest';

import { SVC } from '../svc/svc.ts';
import { eventually } from '../time/eventually.ts';

const run = promisify(execFile);

export interface TmuxSession {
  /** The screen as text, one string per row. */
  capture(): Promise<string>;
  /** tmux key names: 'Up', 'Down', 'PPage', 'NPage', 'f', 'q', 'C-c'. */
  keys(...keys: string[]): Promise<void>;
  /** Waits until the screen matches `pattern`; returns the screen. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  resize(columns: number, rows: number): Promise<void>;
  /** PID of the command running in the pane. */
  readonly pid: number;
}

export async function startTmux(
  command: string,
  columns: number,
  rows: number,
): Promise<TmuxSession> {
  const socket = `svc-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmux = (...args: string[]) =>
    run('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  // remain-on-exit keeps the pane (and what the command printed last) after it ends.
  await tmux('new-session', '-d', '-s', 'test', '-x', String(columns), '-y', String(rows), command);
  await tmux('set-option', '-t', 'test', 'remain-on-exit', 'on');
  const { stdout: pidText } = await tmux('display-message', '-p', '-t', 'test', '#{pane_pid}');
  const { stdout: serverText } = await tmux('display-message', '-p', '-t', 'test', '#{pid}');
  const pid = Number(pidText.trim());
  const server = Number(serverText.trim());
  onTestFinished(() => {
    for (const target of [pid, server]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  const capture = async (): Promise<string> =>
    (await tmux('capture-pane', '-p', '-t', 'test')).stdout;
  return {
    pid,
    capture,
    async keys(...keys) {
      await tmux('send-keys', '-t', 'test', ...keys);
    },
    waitFor: (pattern, timeoutMs = 15_000) =>
      eventually(capture, (screen) => pattern.test(screen), `the screen to match ${pattern}`, {
        timeoutMs,
        intervalMs: 100,
      }),
    async resize(newColumns, newRows) {
      await tmux('resize-window', '-t', 'test', '-x', String(newColumns), '-y', String(newRows));
    },
  };
}

/**
 * A shell line running the built `svc` with `args` and `env`, then printing its exit status and
 * waiting (for input that never comes): tmux clears a dead pane that used the alternate screen,
 * so the pane is kept alive to be read; the test's end kills it by PID.
 */
export function svcInPane(args: readonly string[], env: Record<string, string>): string {
  const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`);
  const command = [process.execPath, SVC, ...args].map(quote).join(' ');
  return `env ${assignments.join(' ')} ${command}; echo "svc exited $?"; read -r _`;
}
