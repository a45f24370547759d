/**
 * Nodes for the scheduler's simulated world: each starts in its own time and becomes ready,
 * crashes on start, or loads for ever; stops in its own time; crashes on cue; carries other
 * callers' load; and reports itself as a daemon would (a loading or stopping engine is `running`).
 * Transitions due later sit in a timeline, cancelled by a crash.
 */
import { cappedSlots } from '../../../src/core/fleet/scheduling/requests/slots.ts';
import type { GroupSettings, NodeView } from '../../../src/core/fleet/scheduling/types.ts';

export interface NodeSpec {
  readonly name: string;
  readonly model: string;
  /** What its engine reports. */
  readonly slots?: number;
  /** The fleet file's `slots` (docs/design.md D31): a cap on ours, whatever the engine reports. */
  readonly cap?: number;
  readonly group?: string;
  readonly idleStopMs?: number;
  readonly keepWarm: boolean;
  readonly scaleOut: boolean;
  readonly startMs: number;
  readonly stopMs: number;
  /** How its starts end: ready, crashed, or loading for ever. */
  readonly start: 'ok' | 'crash' | 'hang';
  readonly up: boolean;
}

/** A rule broken: what and when. */
export class Violation extends Error {}

export interface SimulatedNode {
  readonly spec: NodeSpec;
  state: 'stopped' | 'starting' | 'running' | 'stopping';
  /** Bumped by a crash: transitions planned before it no longer happen. */
  epoch: number;
  startedAt: number | undefined;
  lastActiveAt: number | undefined;
  /** This gateway's requests in its engine. */
  readonly ours: Set<number>;
  others: number;
  /** A wake or stop the scheduler asked for is under way. */
  waking: boolean;
  stopping: boolean;
}

export interface Transition {
  readonly at: number;
  readonly node: SimulatedNode;
  readonly epoch: number;
  readonly what: 'ready' | 'wake-failed' | 'stopped';
}

export class SimulatedNodes {
  readonly all: SimulatedNode[];
  private timeline: Transition[] = [];

  constructor(
    specs: readonly NodeSpec[],
    private readonly groups: ReadonlyMap<string, GroupSettings>,
  ) {
    this.all = specs.map((spec) => ({
      spec,
      state: spec.up ? 'running' : 'stopped',
      epoch: 0,
      startedAt: spec.up ? 0 : undefined,
      lastActiveAt: undefined,
      ours: new Set(),
      others: 0,
      waking: false,
      stopping: false,
    }));
    this.checkGroups();
  }

  named(name: string): SimulatedNode {
    const node = this.all.find((entry) => entry.spec.name === name);
    if (node === undefined) {
      throw new Violation(`an action names an unknown node ${name}`);
    }
    return node;
  }

  at(index: number): SimulatedNode | undefined {
    return this.all[index % this.all.length];
  }

  plan(node: SimulatedNode, at: number, what: Transition['what']): void {
    this.timeline.push({ at, node, epoch: node.epoch, what });
  }

  /** The earliest transition due by `until`, taken off the timeline. */
  next(until: number): Transition | undefined {
    const due = this.timeline.filter((entry) => entry.at <= until).sort((a, b) => a.at - b.at)[0];
    if (due !== undefined) {
      this.timeline = this.timeline.filter((entry) => entry !== due);
    }
    return due;
  }

  /** When the next transition is due, if any is. */
  peek(): number | undefined {
    return this.timeline.reduce<number | undefined>(
      (earliest, entry) => (earliest === undefined || entry.at < earliest ? entry.at : earliest),
      undefined,
    );
  }

  /** What the node's daemon would answer now. */
  viewOf(node: SimulatedNode, now: number): NodeView {
    const up = node.state !== 'stopped';
    const { model, name } = node.spec;
    const slots = cappedSlots(node.spec.slots, node.spec.cap);
    return {
      name,
      observedAt: now,
      // A daemon reports a loading engine as running, not ready, and a stopping one as running.
      state: up ? 'running' : 'stopped',
      ready: node.state === 'running' || node.state === 'stopping',
      serves: up ? [model] : [],
      wakes: [model],
      ...(up && slots !== undefined ? { slots } : {}),
      ...(up ? { busy: node.ours.size + node.others } : {}),
      ...(node.lastActiveAt === undefined ? {} : { lastActiveAt: node.lastActiveAt }),
      ...(up && node.startedAt !== undefined ? { runningSince: node.startedAt } : {}),
    };
  }

  /**
   * docs/design.md D26: never more members up (starting, running or stopping) than the group
   * allows.
   */
  checkGroups(): void {
    for (const [group, settings] of this.groups) {
      const up = this.all.filter((node) => node.spec.group === group && node.state !== 'stopped');
      if (up.length > settings.max) {
        throw new Violation(
          `group ${group} has ${up.length} members up, more than ${settings.max}`,
        );
      }
    }
  }
}
