/**
 * Carries out an AgentPlan: writes the private files (atomically, 0600), then runs the agent in
 * the foreground with the user's terminal, forwarding SIGINT/SIGTERM to it by PID and resolving to
 * its exit status. A forwarded signal the agent ignores is followed by SIGKILL after the stop grace
 * (docs/design.md D10), so svc never returns while the agent still runs. Spawning and signals are
 * injected so the logic has unit tests without processes.
 */
import { type ChildProcess, spawn as nodeSpawn, type SpawnOptions } from 'node:child_process';
import { constants } from 'node:os';

import { SvcError } from '../core/errors.ts';
import { writeFileAtomic } from '../core/fs/atomic-write.ts';
import type { AgentPlan, AgentSpec } from './agent-plan.ts';

export interface RunEdges {
  readonly spawn: (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
  /** Subscribes to SIGINT/SIGTERM sent to svc; returns the unsubscribe. */
  readonly onSignal: (handler: (signal: NodeJS.Signals) => void) => () => void;
  readonly writeFile: (path: string, content: string) => Promise<void>;
  readonly setTimer: (callback: () => void, ms: number) => { unref(): void };
  readonly graceMs: number;
}

export const NODE_EDGES: RunEdges = {
  spawn: (command, args, options) => nodeSpawn(command, [...args], options),
  onSignal(handler) {
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
  writeFile: writeFileAtomic,
  setTimer: (callback, ms) => setTimeout(callback, ms),
  graceMs: 10_000,
};

/** The shell convention for a child ended by a signal: 128 + its number. */
export function statusOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) {
    return code;
  }
  return 128 + (signal === null ? 9 : ((constants.signals[signal] as number | undefined) ?? 9));
}

/** The agent's environment: the user's, less what the plan removes, plus what it adds. */
export function agentEnv(
  env: Readonly<Record<string, string | undefined>>,
  plan: AgentPlan,
): Record<string, string | undefined> {
  const unset = new Set(plan.unsetEnv ?? []);
  const kept = Object.entries(env).filter(([name]) => !unset.has(name));
  return { ...Object.fromEntries(kept), ...plan.env };
}

export async function runAgent(
  agent: Pick<AgentSpec, 'command' | 'install'>,
  plan: AgentPlan,
  userArgs: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  edges: RunEdges = NODE_EDGES,
): Promise<number> {
  for (const file of plan.files) {
    await edges.writeFile(file.path, file.content);
  }
  const { command } = agent;
  const child = edges.spawn(command, [...plan.args, ...userArgs], {
    stdio: 'inherit',
    env: agentEnv(env, plan),
  });
  return new Promise<number>((resolve, reject) => {
    let killTimer: { unref(): void } | undefined;
    const unsubscribe = edges.onSignal((signal) => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        killTimer ??= edges.setTimer(() => {
          child.kill('SIGKILL');
        }, edges.graceMs);
        killTimer.unref();
      }
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      unsubscribe();
      reject(
        error.code === 'ENOENT'
          ? new SvcError(
              'ERR_AGENT_MISSING',
              `${command} is not on PATH: install it with ${agent.install} (svc code --list shows every agent), or pick another with --agent`,
            )
          : new SvcError(
              'ERR_AGENT_MISSING',
              `cannot start ${command} (${error.code ?? 'spawn failed'})`,
            ),
      );
    });
    child.once('exit', (code, signal) => {
      unsubscribe();
      resolve(statusOf(code, signal));
    });
  });
}
