import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';

import { describe, expect, it } from 'vitest';

import { runAgent, type RunEdges, statusOf } from './run-agent.ts';

interface FakeChild extends EventEmitter {
  pid: number;
  exitCode: number | null;
  signalCode: NodeJS.Signals | null;
  kills: string[];
  kill(signal: string): boolean;
}

function harness(options: { exitOn?: string } = {}) {
  const child = new EventEmitter() as FakeChild;
  child.pid = 4242;
  child.exitCode = null;
  child.signalCode = null;
  child.kills = [];
  child.kill = (signal: string) => {
    child.kills.push(signal);
    if (signal === options.exitOn || signal === 'SIGKILL') {
      child.signalCode = signal as NodeJS.Signals;
      queueMicrotask(() => child.emit('exit', null, signal));
    }
    return true;
  };
  const written: [string, string][] = [];
  const spawned: { command: string; args: readonly string[]; env: unknown }[] = [];
  let signalHandler: ((signal: NodeJS.Signals) => void) | undefined;
  const timers: (() => void)[] = [];
  const edges: RunEdges = {
    spawn(command, args, spawnOptions) {
      spawned.push({ command, args, env: spawnOptions.env });
      return child as unknown as ChildProcess;
    },
    onSignal(handler) {
      signalHandler = handler;
      return () => {
        signalHandler = undefined;
      };
    },
    writeFile: (path, content) => {
      written.push([path, content]);
      return Promise.resolve();
    },
    setTimer(callback) {
      timers.push(callback);
      return { unref: () => undefined };
    },
    graceMs: 10_000,
  };
  return {
    child,
    edges,
    written,
    spawned,
    signal: (name: NodeJS.Signals) => signalHandler?.(name),
    subscribed: () => signalHandler !== undefined,
    fireTimers: () => timers.forEach((timer) => timer()),
  };
}

const plan = {
  env: { OPENCODE_CONFIG_CONTENT: '{}', GW: 'secret' },
  unsetEnv: ['ANTHROPIC_API_KEY'],
  args: ['--provider', 'svc'],
  files: [{ path: '/p/models.json', content: '{}\n' }],
  document: { name: 'models.json', content: '{}\n' },
};
const PI = { command: 'pi', install: 'npm install -g pi' };
const OPENCODE = { command: 'opencode', install: 'npm install -g opencode-ai' };

describe('runAgent', () => {
  it('writes the files first, then runs the agent with plan args before the user args, less unset variables', async () => {
    const h = harness();
    const done = runAgent(
      PI,
      plan,
      ['run', 'hi'],
      { PATH: '/bin', ANTHROPIC_API_KEY: 'elsewhere' },
      h.edges,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.written).toEqual([['/p/models.json', '{}\n']]);
    expect(h.spawned).toEqual([
      {
        command: 'pi',
        args: ['--provider', 'svc', 'run', 'hi'],
        env: { PATH: '/bin', OPENCODE_CONFIG_CONTENT: '{}', GW: 'secret' },
      },
    ]);
    h.child.exitCode = 3;
    h.child.emit('exit', 3, null);
    expect(await done).toBe(3);
    expect(h.subscribed()).toBe(false);
  });

  it('forwards SIGTERM by PID and exits with 128 + its number', async () => {
    const h = harness({ exitOn: 'SIGTERM' });
    const done = runAgent(OPENCODE, plan, [], {}, h.edges);
    await new Promise((resolve) => setImmediate(resolve));
    h.signal('SIGTERM');
    expect(await done).toBe(143);
    expect(h.child.kills).toEqual(['SIGTERM']);
  });

  it('kills an agent that ignores the forwarded signal once the grace has passed', async () => {
    const h = harness();
    const done = runAgent(OPENCODE, plan, [], {}, h.edges);
    await new Promise((resolve) => setImmediate(resolve));
    h.signal('SIGINT');
    h.signal('SIGINT');
    expect(h.child.kills).toEqual(['SIGINT', 'SIGINT']);
    h.fireTimers();
    expect(await done).toBe(137);
    expect(h.child.kills).toEqual(['SIGINT', 'SIGINT', 'SIGKILL']);
  });

  it('names the missing program and how to go on', async () => {
    const h = harness();
    const done = runAgent(OPENCODE, plan, [], {}, h.edges);
    await new Promise((resolve) => setImmediate(resolve));
    h.child.emit('error', Object.assign(new Error('spawn'), { code: 'ENOENT' }));
    await expect(done).rejects.toThrow(
      'opencode is not on PATH: install it with npm install -g opencode-ai',
    );
  });
});

describe('statusOf', () => {
  it('is the exit code, or 128 + the signal number', () => {
    expect(statusOf(0, null)).toBe(0);
    expect(statusOf(null, 'SIGINT')).toBe(130);
    expect(statusOf(null, 'SIGKILL')).toBe(137);
  });
});
