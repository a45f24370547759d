/** Process and port helpers the benchmarks share (the test helpers need vitest, these do not). */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export { freePort } from '../test/support/http/net.ts';

/** Resolves with the first match of `pattern` in the child's output; rejects if it exits first. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match !== null) {
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', () => {
      reject(new Error(`exited before ${String(pattern)}: ${output}`));
    });
  });
}

/** SIGTERMs each child, newest first, and waits for each to exit. */
export async function stopChildren(children: ChildProcess[]): Promise<void> {
  for (const child of [...children].reverse()) {
    child.kill('SIGTERM');
    await new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve(undefined);
      } else {
        child.once('exit', resolve);
      }
    });
  }
}

/**
 * Resolves once the child has started; rejects, naming what to install, when it could not be
 * (a missing binary emits 'error', which would otherwise end the benchmark before its cleanup).
 */
export function spawned(child: ChildProcess, install: string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('spawn', () => {
      resolve();
    });
    child.once('error', (error) => {
      reject(new Error(`${child.spawnfile} could not start (${error.message}): ${install}`));
    });
  });
}

/** Listens on 127.0.0.1, port 0, and resolves with the port the system chose. */
export function listenLocal(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * For a helper process the benchmark started: runs `stop` once on SIGTERM/SIGINT or when the
 * parent closes our stdin, which it holds, so the helper goes with it even when it is killed.
 */
export function stopWithParent(stop: () => void | Promise<void>): void {
  let stopping = false;
  const once = (): void => {
    if (!stopping) {
      stopping = true;
      process.stdin.destroy();
      void stop();
    }
  };
  process.once('SIGTERM', once);
  process.once('SIGINT', once);
  process.stdin.resume();
  process.stdin.once('end', once);
  process.stdin.once('close', once);
}

/** The environment a benchmark runs svc in: the engine kit's binaries first on PATH, warnings only. */
export function svcEnv(repoRoot: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${join(repoRoot, '.cache', 'engines', 'bin')}:${process.env['PATH'] ?? ''}`,
    SVC_LOG_LEVEL: 'warn',
    ...extra,
  };
}

/**
 * `svc daemon` from the built CLI on 127.0.0.1, port 0, keeping its state in `configDir`; the
 * child joins `children` (for stopChildren) and the promise resolves with its URL once it listens.
 */
export async function startSvcDaemon(
  repoRoot: string,
  env: NodeJS.ProcessEnv,
  configDir: string,
  children: ChildProcess[],
): Promise<{ daemon: ChildProcess; url: string }> {
  const daemon = spawn(
    process.execPath,
    [join(repoRoot, 'dist', 'cli.js'), 'daemon', '--api-addr', '127.0.0.1:0'],
    { env: { ...env, SVC_CONFIG_DIR: configDir }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(daemon);
  const [, url = ''] = await waitForLine(daemon, /listening on (http:\/\/\S+)/);
  return { daemon, url };
}
