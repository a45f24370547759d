/**
 * Scale to zero with daemons at their own sampling interval (15 s), end to end (docs/design.md
 * D33): the built gateway in front of real daemons running the real llama-server. Two gateway
 * replicas share a node under `idleStop`: the quiet one never stops it while the other uses it,
 * and it is stopped within 2 s of idleStop after its last request, never before, measured against
 * the node's own record. A node put to sleep by its sleep command is woken by its wake command for
 * the very next request, before any status refresh has seen its daemon go.
 */
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import {
  authorized,
  NODE_TOKEN,
  startGatewayFleet,
  startTestGateway,
} from '../support/svc/gateway-fleet.ts';
import { chat, nodeState, sleeperGateway } from '../support/svc/scale-to-zero.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const IDLE_STOP_MS = 4_000;
/** The spec's bound on how late an idle stop may come (docs/design.md D33). */
const LATE_BOUND_MS = 2_000;

const started = (output: string): number => (output.match(/INFO {2}engine started/g) ?? []).length;

/** When the daemon answered its (only) stop request, from its own access line. */
function stopRequestedAt(daemonOutput: string): number {
  const line = daemonOutput.split('\n').find((each) => /path=\/v1\/stop\b/.test(each));
  const time = line?.split(' ')[0];
  if (time === undefined) {
    throw new Error(`the daemon logged no stop request:\n${daemonOutput}`);
  }
  return Date.parse(time);
}

async function lastActiveAt(daemonUrl: string): Promise<number> {
  const reply = await fetch(`${daemonUrl}/v1/status`, { headers: authorized(NODE_TOKEN) });
  const body = (await reply.json()) as { lastActiveAt?: string };
  return Date.parse(body.lastActiveAt ?? '');
}

describe('scale to zero at the daemon’s own sampling interval', () => {
  it('two replicas: never stopped while one uses it, and stopped within 2 s of its idleStop', async () => {
    const model = await writeTinyModel(join(await tempDir(), 'tiny.gguf'));
    const fleet = await startGatewayFleet(
      [
        {
          name: 'shared',
          svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:{port}\n`,
        },
      ],
      { top: [`idleStop: ${IDLE_STOP_MS / 1000}s`], svcfilesFirst: true, sampling: 'default' },
    );
    const shared = fleet.daemons['shared'];
    if (shared === undefined) {
      throw new Error('no daemon for node "shared"');
    }
    const quiet = await startTestGateway({
      cwd: fleet.dir,
      configDir: join(fleet.dir, 'config-2'),
    });

    // Twelve requests through one replica, each after a pause under idleStop: more than three
    // idle-stop periods of use, which the node's sampler (15 s) shows only now and then.
    const replies: string[] = [];
    for (let count = 0; count < 12; count += 1) {
      replies.push(await chat(fleet.url, 'tiny'));
      await new Promise((resolve) => setTimeout(resolve, IDLE_STOP_MS / 3));
    }
    const lastEnded = Date.now() - IDLE_STOP_MS / 3;
    expect(replies).toEqual(Array(12).fill('200 chat.completion'));
    expect(started(shared.process.output())).toBe(1);
    expect(quiet.gateway.stderr()).not.toMatch(/stopping idle node/);
    expect(fleet.gateway.stderr()).not.toMatch(/stopping idle node/);

    // Both quiet now: stopped within 2 s of idleStop after the last request, never before it.
    await eventually(
      () => nodeState(shared.url),
      (state) => state === 'stopped',
      'shared stopped',
    );
    const stopAt = stopRequestedAt(shared.process.output());
    expect(stopAt - (await lastActiveAt(shared.url))).toBeGreaterThanOrEqual(IDLE_STOP_MS);
    expect(stopAt - lastEnded).toBeLessThanOrEqual(IDLE_STOP_MS + LATE_BOUND_MS);
  });

  it('wakes a node its sleep command put to sleep, for the very next request', async () => {
    const { gateway, url, woken, daemonUrl } = await sleeperGateway('8s');

    expect(await chat(url, 'tiny')).toBe('200 chat.completion');
    expect(await woken.runs()).toBe(1);
    // Idle: stopped, then put to sleep; the next request comes as soon as the sleep succeeded.
    await gateway.waitFor(/sleep command done.*node=sleeper/, 60_000);
    expect(await nodeState(daemonUrl)).toBe('down');
    expect(await chat(url, 'tiny')).toBe('200 chat.completion');
    expect(await woken.runs()).toBe(2);
    expect(await nodeState(daemonUrl)).toBe('running');
  });
});
