/**
 * The control-plane simulator's "instance" (test/support/fakes/control-plane.ts): a real llama-server
 * on the tiny model, gated with the engine key, on 127.0.0.1. It is ready once the engine listens
 * and a simulated boot time has passed.
 *
 * Instances outlive the test that booted them (a suite shares one simulator), so they are not tied
 * to one test through startProcess(): each is spawned here and killed by its PID (killInstance).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { findLlamaServer, testPath } from '../prerequisites/engines.ts';

export interface Instance {
  readonly launchedAt: number;
  child?: ChildProcess;
  port?: number;
  listening: boolean;
  readyAt: number;
}

export interface InstanceLaunch {
  readonly environment: string;
  readonly engineKey: string;
  readonly modelPath: string;
  readonly workDir: string;
  readonly servedName?: string;
  /** How long the boot takes after the engine listens. */
  readonly bootMs: number;
}

export function launchInstance(launch: InstanceLaunch): Instance {
  const instance: Instance = {
    launchedAt: Date.now(),
    listening: false,
    readyAt: Number.POSITIVE_INFINITY,
  };
  // The key travels in a file, never on the engine's command line.
  const keyFile = join(launch.workDir, `engine-key-${launch.environment}`);
  void writeFile(keyFile, launch.engineKey, { mode: 0o600 }).then(() => {
    const child = spawn(
      findLlamaServer(),
      [
        '-m',
        launch.modelPath,
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--threads',
        '1',
        '--api-key-file',
        keyFile,
        ...(launch.servedName === undefined ? [] : ['--alias', launch.servedName]),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: testPath() } },
    );
    instance.child = child;
    let output = '';
    const watch = (chunk: Buffer): void => {
      if (instance.listening) {
        return;
      }
      output += chunk.toString('utf8');
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
      if (port !== undefined) {
        instance.port = Number(port);
        instance.listening = true;
        instance.readyAt = Date.now() + launch.bootMs;
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
  });
  return instance;
}

export function isReady(instance: Instance): boolean {
  return instance.listening && Date.now() >= instance.readyAt;
}

/** Kills the instance's engine by its PID. */
export function killInstance(instance: Instance): void {
  const pid = instance.child?.pid;
  if (pid !== undefined && instance.child?.exitCode === null) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
