/**
 * The machine under a node, asleep or awake (docs/design.md D26 `wakeCommand`, `sleepCommand`;
 * docs/design.md D33): after an idle stop the node's sleep command puts it to sleep, and once
 * that succeeded the node counts as asleep until a status asked afterwards answers. A wake of an
 * asleep node, or of one whose daemon did not answer its last status, runs the wake command
 * first; a start its daemon does not answer, on a node with a wake command, wakes the machine and
 * is tried once more (a machine may go to sleep by other means than our sleep command).
 */
import type { Clock } from '../../core/clock.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { FleetView, NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import type { MachineWaker } from './machine-wake.ts';
import { type NodeCommands, SLEEP_COMMAND_LIMIT_MS } from './node-commands.ts';
import { StartUnanswered, type Waker } from './wake.ts';

export interface MachineSleepDeps {
  readonly waker: Pick<Waker, 'wakeNode'>;
  readonly machines: Pick<MachineWaker, 'wake'>;
  readonly commands: Pick<NodeCommands, 'run'>;
  readonly states: Pick<FleetView['states'], 'last'>;
  readonly now: Clock;
  readonly wakeTimeoutMs: number;
}

export class MachineSleep {
  /** Nodes put to sleep by their sleep command, and when it succeeded. */
  private readonly asleep = new Map<string, number>();

  constructor(private readonly deps: MachineSleepDeps) {}

  /** A status was stored, asked at `askedAt`: one that answered after the sleep wakes the node. */
  answered(snapshot: NodeSnapshot, askedAt: number): void {
    const sleptAt = this.asleep.get(snapshot.node.name);
    if (snapshot.ok && sleptAt !== undefined && askedAt > sleptAt) {
      this.asleep.delete(snapshot.node.name);
    }
  }

  /**
   * After an idle stop only (docs/design.md D26): its run logs its own outcome, and a wake waits
   * for it.
   */
  sleep(node: FleetNode): void {
    const argv = node.sleepCommand;
    if (argv === undefined) {
      return;
    }
    const name = node.name;
    const run = { node: name, command: 'sleep', argv, limitMs: SLEEP_COMMAND_LIMIT_MS } as const;
    void this.deps.commands.run(run).then((result) => {
      if (result.outcome === 'ok') {
        this.asleep.set(name, this.deps.now());
      }
    });
  }

  /** Starts the node's engine for `model`, waking its machine first where it is asleep. */
  async wakeEngine(node: FleetNode, model: string): Promise<void> {
    const last = this.deps.states.last(node);
    const asleep = this.asleep.has(node.name) || (last !== undefined && !last.ok);
    if (asleep) {
      await this.wakeMachine(node);
    }
    try {
      await this.deps.waker.wakeNode(node, model);
    } catch (error) {
      if (node.wakeCommand === undefined || asleep || !(error instanceof StartUnanswered)) {
        throw error;
      }
      await this.wakeMachine(node);
      await this.deps.waker.wakeNode(node, model);
    }
  }

  private async wakeMachine(node: FleetNode): Promise<void> {
    const argv = node.wakeCommand;
    if (argv === undefined) {
      return;
    }
    const timeoutMs = this.deps.wakeTimeoutMs;
    const deadline = this.deps.now() + timeoutMs;
    await this.deps.machines.wake({ node, argv, deadline, timeoutMs });
    this.asleep.delete(node.name);
  }
}
