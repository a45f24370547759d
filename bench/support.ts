/** Process and port helpers the benchmarks share (the test helpers need vitest, these do not). */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

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
