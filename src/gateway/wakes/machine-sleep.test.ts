/**
 * The machine under a node, asleep or awake (docs/design.md D33), against fakes: after its sleep
 * command succeeded the node is asleep, so the next wake runs the wake command before the start,
 * even while the last status still shows the daemon answering; a status asked afterwards that
 * answers wakes it; a start its daemon does not answer wakes the machine and is tried once more.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { MachineSleep } from './machine-sleep.ts';
import type { NodeCommandRequest, NodeCommandResult } from './node-commands.ts';
import { StartUnanswered } from './wake.ts';

const NODE = daemonNode('box', { wakeCommand: ['wake-box'], sleepCommand: ['sleep-box'] });

function snapshot(node: FleetNode, ok: boolean): NodeSnapshot {
  return ok
    ? { node, ok: true, status: { state: 'stopped', version: 'dev' } }
    : { node, ok: false, outcome: 'unreachable', detail: 'connect ECONNREFUSED' };
}

function harness(
  starts: readonly (Error | undefined)[],
  last: NodeSnapshot = snapshot(NODE, true),
) {
  const did: string[] = [];
  let now = 1_000;
  let left = [...starts];
  const sleep = new MachineSleep({
    waker: {
      wakeNode: (node) => {
        did.push(`start ${node.name}`);
        const [outcome, ...rest] = left;
        left = rest;
        return outcome === undefined ? Promise.resolve({} as never) : Promise.reject(outcome);
      },
    },
    machines: {
      wake: (request) => {
        did.push(`wake command ${request.node.name}`);
        return Promise.resolve();
      },
    },
    commands: {
      run: (request: NodeCommandRequest): Promise<NodeCommandResult> => {
        did.push(`${request.command} command ${request.node}`);
        return Promise.resolve({
          node: request.node,
          command: request.command,
          program: request.argv[0] ?? '',
          outcome: 'ok',
          exitCode: 0,
          lastLines: [],
          seconds: 0,
        });
      },
    },
    states: { last: () => last },
    now: () => now,
    wakeTimeoutMs: 60_000,
  });
  return {
    sleep,
    did,
    later: (ms: number) => {
      now += ms;
    },
  };
}

describe('machine sleep', () => {
  it('wakes the machine first once its sleep command succeeded, until its daemon answers', async () => {
    const h = harness([undefined, undefined]);
    h.sleep.sleep(NODE);
    await Promise.resolve();
    await Promise.resolve();
    h.later(10);
    // The last status (asked before the sleep) still shows the daemon answering.
    await h.sleep.wakeEngine(NODE, 'chat');
    expect(h.did).toEqual(['sleep command box', 'wake command box', 'start box']);
    // Awake again: a later wake starts the engine only.
    await h.sleep.wakeEngine(NODE, 'chat');
    expect(h.did.slice(3)).toEqual(['start box']);
  });

  it('counts a status that answered after the sleep as awake, and one asked before as not', async () => {
    const h = harness([undefined, undefined]);
    h.sleep.sleep(NODE);
    await Promise.resolve();
    await Promise.resolve();
    h.sleep.answered(snapshot(NODE, true), 0);
    await h.sleep.wakeEngine(NODE, 'chat');
    expect(h.did).toEqual(['sleep command box', 'wake command box', 'start box']);
    h.sleep.sleep(NODE);
    await Promise.resolve();
    await Promise.resolve();
    h.later(10);
    h.sleep.answered(snapshot(NODE, true), 1_010);
    await h.sleep.wakeEngine(NODE, 'chat');
    expect(h.did.slice(3)).toEqual(['sleep command box', 'start box']);
  });

  it('wakes the machine and starts again when its daemon does not answer the start', async () => {
    const h = harness([new StartUnanswered('connect ECONNREFUSED'), undefined]);
    await h.sleep.wakeEngine(NODE, 'chat');
    expect(h.did).toEqual(['start box', 'wake command box', 'start box']);
  });

  it('leaves any other refusal, or a node with no wake command, as it was', async () => {
    const refused = new GatewayError(409, 'start refused: no GPU');
    await expect(harness([refused]).sleep.wakeEngine(NODE, 'chat')).rejects.toBe(refused);
    const plain = daemonNode('plain');
    const unanswered = new StartUnanswered('connect ECONNREFUSED');
    const h = harness([unanswered], snapshot(plain, true));
    await expect(h.sleep.wakeEngine(plain, 'chat')).rejects.toBe(unanswered);
    expect(h.did).toEqual(['start plain']);
  });
});
