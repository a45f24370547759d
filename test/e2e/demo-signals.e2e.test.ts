/**
 * `npm run demo` stops its whole tree on SIGINT or SIGTERM sent to the npm process (npm, node,
 * the daemon, the gateway and llama-server), prints one last line once everything has stopped,
 * and leaves the gateway's port free. Ctrl+C in a terminal signals the whole foreground process
 * group, so the script gets SIGINT twice (the terminal's, then the one npm forwards): npm must
 * still end only after the clean-up, and the last line must still be printed.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT, testPath } from '../support/prerequisites/engines.ts';
import { alive, killSurvivorsAfterTest, processTree } from '../support/processes/process-tree.ts';
import { startProcess } from '../support/processes/processes.ts';
import { tempDir } from '../support/processes/temp-dir.ts';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function refused(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', () => done(true));
  });
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function startDemo(dir: string, detached = false): ReturnType<typeof startProcess> {
  return startProcess(NPM, ['run', 'demo'], {
    cwd: REPO_ROOT,
    detached,
    env: {
      ...process.env,
      PATH: testPath(),
      SVC_DEMO_PORT: '0',
      SVC_DEMO_DIR: join(dir, 'demo'),
      npm_config_update_notifier: 'false',
    },
  });
}

const LAST_LINE = 'demo stopped: the gateway, the daemon and its engine have all exited';

describe('npm run demo', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops every process it started on %s to npm, then prints one last line',
    async (signal) => {
      const dir = await tempDir('svc-demo-');
      const demo = startDemo(dir);
      const [, port = '0'] = await demo.waitFor(/gateway\s+http:\/\/127\.0\.0\.1:(\d+)/, 120_000);
      await demo.waitFor(/Ctrl\+C stops the gateway/, 120_000);
      const tree = processTree(demo.pid);
      killSurvivorsAfterTest(tree);
      const commands = tree.join(' ');
      // npm, the demo script, the daemon, the gateway and the engine the request woke.
      expect(tree.length, commands).toBeGreaterThanOrEqual(5);

      process.kill(demo.pid, signal);
      // Generous: stopping takes a second or two; a tree that ignores the signal never ends.
      const ended = await Promise.race([
        demo.exited().then(() => true),
        new Promise<false>((done) => setTimeout(() => done(false), 90_000)),
      ]);
      expect(ended, `npm run demo still running after ${signal}`).toBe(true);

      expect(alive(tree)).toEqual([]);
      const lines = demo.stdout().trimEnd().split('\n');
      expect(lines.at(-1)).toBe(LAST_LINE);
      expect(lines.filter((line) => line.startsWith('demo stopped'))).toHaveLength(1);
      expect(await refused(Number(port))).toBe(true);
    },
    300_000,
  );

  it('ends npm only after the clean-up and the last line, whichever SIGINTs arrive', async () => {
    const dir = await tempDir('svc-demo-');
    // Its own process group, as a terminal's foreground job is: npm leads it.
    const demo = startDemo(dir, true);
    await demo.waitFor(/Ctrl\+C stops the gateway/, 120_000);
    const tree = processTree(demo.pid);
    killSurvivorsAfterTest(tree);
    expect(tree.length, tree.join(' ')).toBeGreaterThanOrEqual(5);
    const script = tree.find((pid) => commandLine(pid).includes('scripts/demo.ts'));
    expect(script, tree.map(commandLine).join('\n')).toBeDefined();
    // What is left of the tree when npm exits: nothing, or the prompt came back too early.
    const leftAtExit = new Promise<number[]>((done) => {
      demo.child.once('exit', () => done(alive(tree)));
    });

    // Ctrl+C reaches the script twice: npm forwards one, and the terminal signals the whole
    // group. Here npm's comes first and the terminal's once the clean-up has begun (the script
    // has told the gateway to stop), the order that ended the script half-way.
    process.kill(script ?? 0, 'SIGINT');
    await demo.waitFor(/shutting down signal=SIGTERM/, 30_000);
    process.kill(-demo.pid, 'SIGINT');
    const ended = await Promise.race([
      leftAtExit,
      new Promise<false>((done) => setTimeout(() => done(false), 90_000)),
    ]);
    expect(ended, 'npm run demo still running after Ctrl+C').not.toBe(false);
    expect(ended).toEqual([]);
    await demo.exited();
    const lines = demo.stdout().trimEnd().split('\n');
    expect(lines.at(-1)).toBe(LAST_LINE);
    expect(lines.filter((line) => line.startsWith('demo stopped'))).toHaveLength(1);
  }, 300_000);
});
