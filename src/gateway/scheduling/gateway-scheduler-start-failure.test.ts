/**
 * A failed start is an error line at once, whoever asked for it: a keep-warm start (docs/design.md D26)
 * that fails has no request to carry its failure, so before it was said nowhere until a request
 * came. And no keep-warm start goes out before the gateway has bound its address (`watch`). The gateway's scheduler over a fake driver and waker, with its real loop, views and pure
 * scheduler; no process, no socket, no timer fires.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import { fleetViewOver } from '../../../test/support/scheduling/fleet-view-over.ts';
import { eventually } from '../../../test/support/time/eventually.ts';
import type { NodeDriver } from '../../core/fleet/drivers/node-driver.ts';
import type { Fleet } from '../../core/fleet/file/fleet-file.ts';
import { Scheduler } from '../../core/fleet/scheduling/scheduler.ts';
import { schedulerSettings } from '../../core/fleet/scheduling/settings.ts';
import { schedulerOptionsOf } from '../../core/fleet/scheduling/settings-of-fleet.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { createLogger } from '../../core/logger.ts';
import { GatewayScheduler } from './gateway-scheduler.ts';

const NOT_FOUND = 'start refused: llama-server not found on PATH: install llama.cpp';

function gatewayOf(wakeError: Error) {
  const node = daemonNode('warm', { keepWarm: true });
  const fleet: Fleet = { path: '/fleet/fleet.yaml', nodes: [node] };
  const asked: string[] = [];
  const driver: Pick<NodeDriver, 'status' | 'wakeSource' | 'stop' | 'stats'> = {
    status: (each) => {
      asked.push(each.name);
      return Promise.resolve({
        ok: true,
        value: { state: 'stopped', runner: 'llamacpp', version: 'dev' },
      });
    },
    wakeSource: () =>
      Promise.resolve({ source: '/fleet/warm.svc', config: { runner: 'llamacpp', modelId: 'm' } }),
    stop: () => Promise.reject(new Error('no stops here')),
    stats: () => Promise.reject(new Error('no reads here')),
  };
  const { view } = fleetViewOver(fleet, driver);
  const lines: string[] = [];
  const woken: string[] = [];
  const scheduling = new GatewayScheduler({
    scheduler: new Scheduler(schedulerSettings(schedulerOptionsOf(fleet, 60_000))),
    view,
    waker: {
      wakeNode: (wakes) => {
        woken.push(wakes.name);
        return Promise.reject(wakeError);
      },
    },
    available: () => Promise.resolve({ text: '', served: [] }),
    machines: { wake: () => Promise.reject(new Error('no machines here')) },
    commands: { run: () => Promise.reject(new Error('no commands here')) },
    driver,
    logger: createLogger('info', { write: (line) => lines.push(line) }),
    timers: { now: () => Date.now(), after: () => () => undefined },
    wakeTimeoutMs: 60_000,
  });
  return { scheduling, lines, woken, asked };
}

describe('a failed start', () => {
  it('is an error line at once when a keep-warm start fails, naming the node and why', async () => {
    const { scheduling, lines, woken } = gatewayOf(new GatewayError(409, NOT_FOUND));
    scheduling.watch();
    const failed = await eventually(
      () => Promise.resolve(lines.filter((line) => line.includes('node start failed'))),
      (found) => found.length > 0,
      'the failed keep-warm start logged',
    );
    scheduling.close();
    expect(woken).toEqual(['warm']);
    expect(failed).toEqual([
      expect.stringMatching(
        /ERROR node start failed node=warm model=m cause=keep-warm reason="start refused: llama-server not found on PATH: install llama\.cpp"/,
      ) as string,
    ]);
  });

  it('is no error when the wake only ran out of time (the engine goes on loading)', async () => {
    const timedOut = new GatewayError(504, 'still loading', { code: 'wake_timeout' });
    const { scheduling, lines, woken } = gatewayOf(timedOut);
    scheduling.watch();
    await eventually(
      () => Promise.resolve(woken),
      (found) => found.length > 0,
      'the keep-warm start begun',
    );
    // The wake's rejection is handled within the turn that follows it.
    await new Promise((resolve) => setImmediate(resolve));
    scheduling.close();
    expect(lines.some((line) => line.includes('keeping node warm node=warm'))).toBe(true);
    expect(lines.filter((line) => line.includes('ERROR'))).toEqual([]);
  });

  it('is not asked for before the gateway watches, once its address is bound', async () => {
    const { scheduling, woken, asked } = gatewayOf(new GatewayError(409, NOT_FOUND));
    // Every turn the constructor could have begun a status call or a start in has run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([]);
    expect(woken).toEqual([]);
    scheduling.watch();
    await eventually(
      () => Promise.resolve(woken),
      (found) => found.length > 0,
      'the keep-warm start begun',
    );
    scheduling.close();
    expect(asked).toEqual(['warm']);
  });
});
