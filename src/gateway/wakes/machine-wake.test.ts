/**
 * Waking a node's machine against a fake command runner, a fake daemon and a fake clock
 * (docs/design.md D26, D19): the command first, then the daemon asked until it answers, within the
 * deadline; one run for concurrent callers; a failed command a 502 with its last lines; a timeout a
 * 504 naming the node. No process, no socket, no real time.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import { FakeClock } from '../../../test/support/time/fake-clock.ts';
import type { NodeReply, NodeStatus } from '../../core/fleet/drivers/node-driver.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { createLogger } from '../../core/logger.ts';
import { MACHINE_POLL_MS, MachineWaker } from './machine-wake.ts';
import type { NodeCommandRequest, NodeCommandResult } from './node-commands.ts';

const TIMEOUT_MS = 60_000;
const NODE = daemonNode('gpu1');
const ARGV = ['wakeonlan', 'aa:bb:cc:dd:ee:ff'];

const STOPPED: NodeStatus = { state: 'stopped', runner: 'llamacpp', version: 'dev' };

function harness(options: {
  /** How long the command runs, and how it ends. */
  commandMs?: number;
  command?: Partial<NodeCommandResult>;
  /** When (ms after the start) the daemon first answers; never when absent. */
  answersAfterMs?: number;
  /** What the daemon says once it answers. */
  answer?: NodeReply<NodeStatus>;
}) {
  const clock = new FakeClock();
  const start = clock.now();
  const runs: NodeCommandRequest[] = [];
  const asked: number[] = [];
  const commands = {
    run: async (request: NodeCommandRequest): Promise<NodeCommandResult> => {
      runs.push(request);
      await clock.sleep(options.commandMs ?? 1_000);
      return {
        node: request.node,
        command: request.command,
        program: request.argv[0] ?? '',
        outcome: 'ok',
        exitCode: 0,
        lastLines: [],
        seconds: 1,
        ...options.command,
      };
    },
  };
  const client = {
    status: (): Promise<NodeReply<NodeStatus>> => {
      const at = clock.now() - start;
      asked.push(at);
      const { answersAfterMs } = options;
      return Promise.resolve(
        answersAfterMs !== undefined && at >= answersAfterMs
          ? (options.answer ?? { ok: true, value: STOPPED })
          : { ok: false, outcome: 'unreachable', detail: 'connect ECONNREFUSED' },
      );
    },
  };
  const waker = new MachineWaker(
    commands,
    client,
    createLogger('error', { write: () => undefined }),
    {
      now: clock.now,
      sleep: clock.sleep,
    },
  );
  const wake = () =>
    waker.wake({ node: NODE, argv: ARGV, deadline: start + TIMEOUT_MS, timeoutMs: TIMEOUT_MS });
  return { clock, runs, asked, wake };
}

/** The rejection of `promise`, once the clock has moved far enough for it to settle. */
async function rejection(promise: Promise<unknown>, clock: FakeClock): Promise<GatewayError> {
  const caught = promise.then(
    () => {
      throw new Error('expected the wake to fail');
    },
    (error: unknown) => error,
  );
  await clock.advance(TIMEOUT_MS + 10_000);
  const error = await caught;
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('machine wake', () => {
  it('runs the wake command, then asks the daemon until it answers', async () => {
    const { clock, runs, asked, wake } = harness({ commandMs: 2_000, answersAfterMs: 20_000 });
    let woken = false;
    void wake().then(() => (woken = true));
    await clock.advance(19_000);
    expect(woken).toBe(false);
    expect(runs).toEqual([{ node: 'gpu1', command: 'wake', argv: ARGV, limitMs: TIMEOUT_MS }]);
    // Not asked while the command ran; then every poll interval.
    expect(asked[0]).toBe(2_000);
    expect(asked[1]).toBe(2_000 + MACHINE_POLL_MS);
    await clock.advance(1_000);
    expect(woken).toBe(true);
    expect(asked.at(-1)).toBe(20_000);
  });

  it('counts any answer but silence as awake: a refusal is the engine wake’s to report', async () => {
    const { clock, wake } = harness({
      answersAfterMs: 5_000,
      answer: { ok: false, outcome: 'unauthorized', status: 401, detail: 'bad token' },
    });
    const woken = wake();
    await clock.advance(5_000);
    await expect(woken).resolves.toBeUndefined();
  });

  it('shares one run between concurrent callers', async () => {
    const { clock, runs, wake } = harness({ answersAfterMs: 3_000 });
    const first = wake();
    const second = wake();
    expect(second).toBe(first);
    await clock.advance(3_000);
    await Promise.all([first, second]);
    expect(runs).toHaveLength(1);
    const again = wake();
    await clock.advance(3_000);
    await again;
    expect(runs).toHaveLength(2);
  });

  it('fails with the command’s outcome and last lines when it fails, without asking the daemon', async () => {
    const { clock, asked, wake } = harness({
      answersAfterMs: 0,
      command: {
        outcome: 'failed',
        exitCode: 255,
        lastLines: ['ssh: connect to host gpu1 port 22: No route to host'],
      },
    });
    const error = await rejection(wake(), clock);
    expect(error.status).toBe(502);
    expect(error.code).toBe('wake_failed');
    expect(error.message).toBe(
      'node "gpu1" did not answer, and the wake command (wakeonlan) exited with status 255; its last lines:\n  ssh: connect to host gpu1 port 22: No route to host',
    );
    expect(asked).toEqual([]);
  });

  it('times out naming the node when the command outlives the wake timeout', async () => {
    const { clock, asked, wake } = harness({
      command: { outcome: 'timeout' },
      commandMs: TIMEOUT_MS,
    });
    const error = await rejection(wake(), clock);
    expect(error.status).toBe(504);
    expect(error.code).toBe('wake_timeout');
    expect(error.message).toContain('node "gpu1" did not answer within 1m of being woken');
    expect(error.message).toContain('its wake command was still running');
    expect(asked).toEqual([]);
  });

  it('times out naming the node when its daemon never answers, asking no later than the deadline', async () => {
    const { clock, asked, wake } = harness({});
    const error = await rejection(wake(), clock);
    expect(error.status).toBe(504);
    expect(error.code).toBe('wake_timeout');
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(error.message).toContain('node "gpu1" did not answer within 1m of being woken');
    expect(error.message).toContain('its daemon never answered');
    expect(Math.max(...asked)).toBeLessThan(TIMEOUT_MS);
  });
});
