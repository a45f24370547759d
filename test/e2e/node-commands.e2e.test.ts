/**
 * A node's wake and sleep commands as real processes (docs/design.md D26): the gateway's runner
 * with its real edges, against `node -e` scripts. What a fake spawn cannot show: no shell reads the
 * argv, the child's environment really lacks the tokens, and the time limit ends the command's
 * whole process group, a background child included. Whatever a test left running is killed by PID.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../../src/core/logger.ts';
import { NodeCommands } from '../../src/gateway/wakes/node-commands.ts';
import { eventually } from '../support/time/eventually.ts';

const TOKEN = 'node-token-0123456789';
const leftover: number[] = [];

afterEach(() => {
  for (const pid of leftover.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
});

function runner() {
  const lines: string[] = [];
  const commands = new NodeCommands({
    logger: createLogger('info', { write: (line) => lines.push(line) }),
    env: { ...process.env, NODE_TOKEN: TOKEN, SVC_API_TOKEN: 'gateway-token-0123456789' },
    hidden: { variables: ['NODE_TOKEN'], values: [TOKEN] },
  });
  /** The `line=` field of each output record, as the script wrote it. */
  const output = (): string[] =>
    lines
      .filter((line) => line.includes(' command output '))
      .map((line) => {
        const value = /line=(.*)$/.exec(line.trim())?.[1] ?? '';
        return value.startsWith('"') ? (JSON.parse(value) as string) : value;
      });
  return { commands, lines, output };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('node commands (real processes)', () => {
  it('passes the argv to the program with no shell, and hides the tokens from it', async () => {
    const { commands, lines, output } = runner();
    const script =
      'console.log(JSON.stringify(process.argv.slice(1)));' +
      'console.log(JSON.stringify([process.env.NODE_TOKEN, process.env.SVC_API_TOKEN, process.env.SVC_NODE]))';
    const result = await commands.run({
      node: 'gpu1',
      command: 'wake',
      argv: [process.execPath, '-e', script, '$HOME', 'a b; echo x', '*'],
      limitMs: 60_000,
    });
    expect(result).toMatchObject({ outcome: 'ok', exitCode: 0 });
    expect(output()).toEqual([
      JSON.stringify(['$HOME', 'a b; echo x', '*']),
      JSON.stringify([null, null, 'gpu1']),
    ]);
    expect(lines.join('')).not.toContain(TOKEN);
  });

  it('reports a failed command with its exit status and last lines', async () => {
    const { commands } = runner();
    const result = await commands.run({
      node: 'gpu1',
      command: 'sleep',
      argv: [process.execPath, '-e', 'console.error("no route to host"); process.exit(3)'],
      limitMs: 60_000,
    });
    expect(result).toMatchObject({
      outcome: 'failed',
      exitCode: 3,
      lastLines: ['no route to host'],
    });
    const missing = await commands.run({
      node: 'gpu1',
      command: 'wake',
      argv: ['/nonexistent/wake-tool'],
      limitMs: 60_000,
    });
    expect(missing).toMatchObject({ outcome: 'failed', error: 'it could not be started (ENOENT)' });
  });

  it('ends the whole process group at the time limit', async () => {
    const { commands, output } = runner();
    // The command starts a background child of its own, prints its pid, and never ends.
    const script = [
      'const { spawn } = require("node:child_process");',
      'const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });',
      'console.log(child.pid);',
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const run = commands.run({
      node: 'gpu1',
      command: 'wake',
      argv: [process.execPath, '-e', script],
      limitMs: 3_000,
    });
    const [printed] = await eventually(
      () => Promise.resolve(output()),
      (seen) => seen.length > 0,
      'the background child pid',
    );
    const background = Number(printed);
    leftover.push(background);
    expect(alive(background)).toBe(true);
    await expect(run).resolves.toMatchObject({ outcome: 'timeout', signal: 'SIGTERM' });
    await eventually(
      () => Promise.resolve(alive(background)),
      (isAlive) => !isAlive,
      'the background child to be gone',
    );
  });
});
