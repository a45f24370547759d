/**
 * The node command runner against a fake spawn and a fake clock (docs/design.md D26): the argv
 * passed exactly as written, the environment without the fleet's tokens, output logged line by line
 * and redacted, the group signalled at the limit (SIGTERM, then SIGKILL), an outcome for every end,
 * one process for concurrent runs, and the gateway's stop ending what runs. No process, no wait.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { FakeClock } from '../../../test/support/time/fake-clock.ts';
import { createLogger } from '../../core/logger.ts';
import type { CommandChild, CommandSpawnOptions } from './node-command-edges.ts';
import { NODE_VARIABLE } from './node-command-env.ts';
import {
  KILL_GRACE_MS,
  type NodeCommandRequest,
  NodeCommands,
  OUTPUT_GRACE_MS,
} from './node-commands.ts';

const SECRET = 'node-token-123456';

class FakeChild extends EventEmitter implements CommandChild {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  constructor(readonly pid: number | undefined) {
    super();
  }
  /** The process ends: `exit`, then (its pipes closed) `close`. */
  end(code: number | null, signal: NodeJS.Signals | null = null): void {
    this.emit('exit', code, signal);
    this.emit('close', code, signal);
  }
}

interface Spawned {
  readonly file: string;
  readonly args: readonly string[];
  readonly options: CommandSpawnOptions;
  readonly child: FakeChild;
}

function harness(options: { spawnThrows?: boolean } = {}) {
  const clock = new FakeClock();
  const spawned: Spawned[] = [];
  const signals: string[] = [];
  const logs: string[] = [];
  const ended: string[] = [];
  const commands = new NodeCommands(
    {
      logger: createLogger('debug', { write: (line) => logs.push(line) }),
      env: {
        PATH: '/usr/bin',
        HOME: '/home/op',
        NODE_TOKEN: SECRET,
        COPY_OF_TOKEN: SECRET,
        SVC_API_TOKEN: 'gateway-token-abcdef',
      },
      hidden: { variables: ['NODE_TOKEN'], values: [SECRET] },
      observer: {
        commandEnded: (node, command, outcome) => ended.push(`${node}:${command}:${outcome}`),
      },
    },
    {
      spawn: (file, args, spawnOptions) => {
        if (options.spawnThrows === true) {
          throw Object.assign(new Error(`spawn ${file} EACCES`), { code: 'EACCES' });
        }
        const child = new FakeChild(1000 + spawned.length);
        spawned.push({ file, args, options: spawnOptions, child });
        return child;
      },
      signalGroup: (pgid, signal) => signals.push(`${pgid}:${signal}`),
      now: clock.now,
      setTimer: clock.setTimer,
    },
  );
  const child = (index = 0): FakeChild => {
    const entry = spawned[index];
    if (entry === undefined) {
      throw new Error(`no spawn #${index}`);
    }
    return entry.child;
  };
  return { clock, commands, spawned, signals, logs, ended, child };
}

const wake = (extra: Partial<NodeCommandRequest> = {}): NodeCommandRequest => ({
  node: 'gpu1',
  command: 'wake',
  argv: ['wakeonlan', 'aa:bb:cc:dd:ee:ff'],
  limitMs: 10_000,
  ...extra,
});

describe('node commands', () => {
  it('passes the argv exactly as written, the program apart from its arguments', async () => {
    const { commands, spawned, child, clock } = harness();
    const argv = ['ssh', 'gpu1', 'systemctl start svc-daemon; echo $HOME', '"quoted" *'];
    const result = commands.run(wake({ argv }));
    await clock.settle();
    expect(spawned.map(({ file, args }) => ({ file, args }))).toEqual([
      { file: 'ssh', args: argv.slice(1) },
    ]);
    child().end(0);
    await expect(result).resolves.toMatchObject({ outcome: 'ok', exitCode: 0, program: 'ssh' });
  });

  it('hides every token variable and any variable holding a token, and sets SVC_NODE', async () => {
    const { commands, spawned, child, clock, logs } = harness();
    const result = commands.run(wake());
    await clock.settle();
    const env = spawned[0]?.options.env ?? {};
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/op', [NODE_VARIABLE]: 'gpu1' });
    child().end(0);
    await result;
    expect(logs.join('')).not.toContain(SECRET);
    expect(logs.join('')).not.toContain('/home/op');
  });

  it('logs each output line naming the node and the command, with tokens redacted', async () => {
    const { commands, child, clock, logs } = harness();
    const result = commands.run(wake());
    await clock.settle();
    child().stdout.write('Sending magic pa');
    child().stdout.write(`cket to aa:bb\nkey ${SECRET} echoed\n`);
    child().stderr.write('warning: no route\n\n');
    await clock.settle();
    child().stdout.write('no newline at the end');
    await clock.settle();
    child().end(0);
    await result;
    const output = logs.filter((line) => line.includes('wake command output'));
    expect(output).toHaveLength(4);
    expect(output[0]).toContain('node=gpu1 command=wake stream=stdout');
    expect(output[0]).toContain('line="Sending magic packet to aa:bb"');
    expect(output[1]).toContain('line="key *** echoed"');
    expect(output[2]).toContain('stream=stderr line="warning: no route"');
    expect(output[3]).toContain('line="no newline at the end"');
    expect(logs.join('')).not.toContain(SECRET);
  });

  it('signals the whole group at the limit, SIGKILL after the grace, and reports a timeout', async () => {
    const { commands, child, clock, signals, ended } = harness();
    let settled = false;
    const result = commands.run(wake({ limitMs: 10_000 }));
    void result.then(() => (settled = true));
    await clock.advance(9_999);
    expect(signals).toEqual([]);
    await clock.advance(1);
    expect(signals).toEqual(['1000:SIGTERM']);
    await clock.advance(KILL_GRACE_MS - 1);
    expect(signals).toEqual(['1000:SIGTERM']);
    await clock.advance(1);
    expect(signals).toEqual(['1000:SIGTERM', '1000:SIGKILL']);
    expect(settled).toBe(false);
    child().end(null, 'SIGKILL');
    await expect(result).resolves.toMatchObject({ outcome: 'timeout', signal: 'SIGKILL' });
    expect(ended).toEqual(['gpu1:wake:timeout']);
  });

  it('ends a timed-out run even when the group outlives SIGKILL', async () => {
    const { commands, clock } = harness();
    const result = commands.run(wake({ limitMs: 1_000 }));
    await clock.advance(1_000 + KILL_GRACE_MS + OUTPUT_GRACE_MS);
    await expect(result).resolves.toMatchObject({ outcome: 'timeout' });
    expect(clock.pending).toBe(0);
  });

  it('reports a non-zero exit as failed, with its status and last lines', async () => {
    const { commands, child, clock, ended } = harness();
    const result = commands.run(wake());
    await clock.settle();
    child().stderr.write(
      ['line 1', 'line 2', 'line 3', 'line 4', 'line 5', 'ssh: connect: refused', ''].join('\n'),
    );
    await clock.settle();
    child().end(255);
    const value = await result;
    expect(value).toMatchObject({ outcome: 'failed', exitCode: 255 });
    expect(value.lastLines).toEqual([
      'line 2',
      'line 3',
      'line 4',
      'line 5',
      'ssh: connect: refused',
    ]);
    expect(ended).toEqual(['gpu1:wake:failed']);
  });

  it('reports a program that cannot start as failed, naming the reason and not the argv', async () => {
    const { commands, child, clock } = harness();
    const result = commands.run(wake({ argv: ['no-such-tool', SECRET] }));
    await clock.settle();
    child().emit(
      'error',
      Object.assign(new Error(`spawn no-such-tool ${SECRET}`), { code: 'ENOENT' }),
    );
    const value = await result;
    expect(value).toMatchObject({ outcome: 'failed', error: 'it could not be started (ENOENT)' });
    expect(JSON.stringify(value)).not.toContain(SECRET);
    const thrown = harness({ spawnThrows: true });
    await expect(thrown.commands.run(wake())).resolves.toMatchObject({
      outcome: 'failed',
      error: 'it could not be started (EACCES)',
    });
  });

  it('shares one process between concurrent runs of one node command, and only those', async () => {
    const { commands, spawned, child, clock } = harness();
    const first = commands.run(wake());
    const second = commands.run(wake({ limitMs: 99_000 }));
    const other = commands.run(wake({ node: 'gpu2' }));
    await clock.settle();
    expect(spawned.map((entry) => entry.options.env[NODE_VARIABLE])).toEqual(['gpu1', 'gpu2']);
    child(0).end(0);
    child(1).end(1);
    expect(await first).toBe(await second);
    await expect(other).resolves.toMatchObject({ outcome: 'failed' });
    const again = commands.run(wake());
    await clock.settle();
    expect(spawned).toHaveLength(3);
    child(2).end(0);
    await again;
  });

  it('ends a run whose pipes stay open after the command exits', async () => {
    const { commands, child, clock } = harness();
    let settled = false;
    const result = commands.run(wake());
    void result.then(() => (settled = true));
    await clock.settle();
    child().emit('exit', 0, null);
    await clock.advance(OUTPUT_GRACE_MS - 1);
    expect(settled).toBe(false);
    await clock.advance(1);
    await expect(result).resolves.toMatchObject({ outcome: 'ok' });
  });

  it('starts a wake only once the node sleep command has ended', async () => {
    const { commands, spawned, child, clock } = harness();
    const sleep = commands.run(wake({ command: 'sleep', argv: ['ssh', 'gpu1', 'suspend'] }));
    const woken = commands.run(wake());
    await clock.settle();
    expect(spawned.map((entry) => entry.file)).toEqual(['ssh']);
    child(0).end(0);
    await sleep;
    await clock.settle();
    expect(spawned.map((entry) => entry.file)).toEqual(['ssh', 'wakeonlan']);
    child(1).end(0);
    await expect(woken).resolves.toMatchObject({ command: 'wake', outcome: 'ok' });
  });

  it('stops every running group when the gateway stops', async () => {
    const { commands, child, clock, signals } = harness();
    const woken = commands.run(wake());
    const asleep = commands.run(wake({ node: 'gpu2', command: 'sleep' }));
    await clock.settle();
    const stopped = commands.stopAll();
    await clock.settle();
    expect(signals).toEqual(['1000:SIGTERM', '1001:SIGTERM']);
    child(0).end(null, 'SIGTERM');
    child(1).end(null, 'SIGTERM');
    await stopped;
    for (const result of [await woken, await asleep]) {
      expect(result).toMatchObject({
        outcome: 'failed',
        error: 'stopped: the gateway is shutting down',
      });
    }
  });

  it('refuses an empty argv without starting anything', async () => {
    const { commands, spawned } = harness();
    await expect(commands.run(wake({ argv: [] }))).resolves.toMatchObject({
      outcome: 'failed',
      error: 'it names no program',
    });
    expect(spawned).toEqual([]);
  });
});
