/**
 * The hung-node target of the fleet-scale benchmark (docs/benchmarks.md#fleet-scale): routed
 * completions through a 1-node fleet's gateway and a 1,000-node fleet's with one hung node, one
 * for one, both fleets' nodes pointing at the same fake engines.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { waitForLine } from '../support.ts';
import {
  completion,
  PACE_MS,
  type RunningGateway,
  type Spread,
  spread,
  startFakeFleet,
  startGateway,
  stopChild,
  timed,
  WARM_UP,
} from './fleet-processes.ts';

/**
 * The hung-node target's comparison, interleaved so the machine's drift hits both alike: a
 * gateway over 1 node and one over 1,000 nodes with a hung node first, both running, one
 * completion to each in turn.
 */
export async function measurePaired(
  cli: string,
  completions: number,
  engines: string,
): Promise<{ single: Spread; hung: Spread }> {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  try {
    const gateways: RunningGateway[] = [];
    for (const [nodes, file] of [
      [1, 'fleet.yaml'],
      [1_000, 'fleet-hung.yaml'],
    ] as const) {
      const dir = await mkdtemp(join(tmpdir(), 'svc-fleetbench-'));
      dirs.push(dir);
      const fleet = startFakeFleet(nodes, dir, engines);
      children.push(fleet);
      await waitForLine(fleet, /ready (\d+)/);
      const gateway = await startGateway(cli, join(dir, file), dir);
      children.push(gateway.child);
      gateways.push(gateway);
    }
    const [single, hung] = gateways;
    if (single === undefined || hung === undefined) {
      throw new Error('the paired gateways did not start');
    }
    const times: [number[], number[]] = [[], []];
    for (let index = -WARM_UP; index < completions; index += 1) {
      for (const [slot, gateway] of [single, hung].entries()) {
        const result = await timed(gateway.pool, '/v1/chat/completions', completion('model-0'));
        if (result.status !== 200) {
          throw new Error(`paired run: HTTP ${result.status}`);
        }
        if (index >= 0) {
          times[slot]?.push(result.ms);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
    await Promise.all(gateways.map((gateway) => gateway.pool.close()));
    return { single: spread(times[0]), hung: spread(times[1]) };
  } finally {
    for (const child of children.reverse()) {
      await stopChild(child);
    }
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
