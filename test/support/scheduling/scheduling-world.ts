/**
 * A simulated fleet for the scheduler's properties: callers that arrive, end and hang up; nodes
 * (simulated-nodes.ts) that start, stop, crash and carry other callers' load; refreshes that
 * arrive late; a clock that jumps, firing the scheduler's timer where it asks. The world applies
 * each action as the gateway's edge would and checks every rule the moment it could break,
 * throwing a Violation that names it, so fast-check shrinks a failing run to the shortest sequence
 * of commands that breaks it.
 */
import { Scheduler } from '../../../src/core/fleet/scheduling/scheduler.ts';
import { schedulerSettings } from '../../../src/core/fleet/scheduling/settings.ts';
import type { Action, NodeView, SchedulerEvent } from '../../../src/core/fleet/scheduling/types.ts';
import { checkExclusive, checkPersistentStop } from './exclusive-rules.ts';
import {
  type Caller,
  checkAnswer,
  checkBooks,
  checkOrder,
  checkStop,
  checkTarget,
  checkWake,
} from './scheduling-rules.ts';
import type { Command, WorldSpec } from './scheduling-world-commands.ts';
import {
  type SimulatedNode,
  SimulatedNodes,
  type Transition,
  Violation,
} from './simulated-nodes.ts';

export type { Command, WorldSpec } from './scheduling-world-commands.ts';
export { type NodeSpec, Violation } from './simulated-nodes.ts';

export class SchedulingWorld {
  now = 0;
  readonly scheduler: Scheduler;
  private readonly nodes: SimulatedNodes;
  private readonly callers = new Map<number, Caller>();
  private readonly history: NodeView[][] = [];
  /** Operators' starts (docs/design.md D33) and whether each has had its answer. */
  private readonly starts = new Map<number, 'waiting' | 'done'>();
  private nextId = 1;

  /** `observe` hears every action, for a test that counts what the runs reach. */
  constructor(
    private readonly spec: WorldSpec,
    private readonly observe: (action: Action) => void = () => undefined,
  ) {
    const { nodes, groups, queue, wakeTimeoutMs, prefer, affinity } = spec;
    this.scheduler = new Scheduler(
      schedulerSettings({ nodes, groups, queue, wakeTimeoutMs, prefer, affinity }),
    );
    this.nodes = new SimulatedNodes(nodes, groups);
    this.run({ kind: 'refresh', lag: 0 });
  }

  run(command: Command): void {
    switch (command.kind) {
      case 'arrive':
        this.arrive(command);
        break;
      case 'end':
        this.endOne(this.pick('running', command.pick));
        break;
      case 'hang-up': {
        const caller = this.pick('waiting', command.pick);
        if (caller !== undefined) {
          caller.status = 'done';
          this.feed({ kind: 'end', id: caller.id });
        }
        break;
      }
      case 'advance':
        this.advance(command.ms);
        break;
      case 'refresh': {
        this.history.push(this.nodes.all.map((node) => this.nodes.viewOf(node, this.now)));
        const views = this.history[Math.max(0, this.history.length - 1 - command.lag)] ?? [];
        this.feed({ kind: 'views', views });
        break;
      }
      case 'crash':
        this.crash(this.nodes.at(command.node));
        break;
      case 'others': {
        const node = this.nodes.at(command.node);
        if (node !== undefined) {
          node.others = command.busy;
        }
        break;
      }
      case 'start': {
        const node = this.nodes.at(command.node);
        const id = this.nextId++;
        this.starts.set(id, 'waiting');
        this.feed({ kind: 'start', id, node: node?.spec.name ?? 'n0', force: command.force });
        break;
      }
    }
    checkBooks(this.nodes.all, (node) => this.scheduler.inFlight(node));
  }

  /** Ends everything in flight and lets time pass until every caller has had an answer. */
  finish(): void {
    const span = this.spec.wakeTimeoutMs + this.spec.queue.timeoutMs + 10_000;
    for (let round = 0; round < 20; round += 1) {
      for (const caller of [...this.callers.values()]) {
        this.endOne(caller);
      }
      this.run({ kind: 'refresh', lag: 0 });
      this.run({ kind: 'advance', ms: span });
    }
    const left = [...this.callers.values()].filter((caller) => caller.status === 'waiting');
    const starts = [...this.starts].filter(([, status]) => status === 'waiting');
    if (starts.length > 0) {
      throw new Violation(`starts never answered: ${starts.map(([id]) => id).join(', ')}`);
    }
    if (left.length > 0 || this.scheduler.queued().size > 0) {
      throw new Violation(`requests never answered: ${left.map((caller) => caller.id).join(', ')}`);
    }
  }

  private arrive(command: Command & { kind: 'arrive' }): void {
    const id = this.nextId++;
    const { models } = this.spec;
    const model = command.model < 0 ? 'ghost' : (models[command.model % models.length] ?? '');
    this.callers.set(id, { id, model, streaming: command.streaming, status: 'waiting' });
    const key = command.key === undefined ? {} : { affinity: `k${command.key}` };
    this.feed({ kind: 'arrive', request: { id, model, streaming: command.streaming, ...key } });
  }

  private pick(status: Caller['status'], index: number): Caller | undefined {
    const matching = [...this.callers.values()].filter((caller) => caller.status === status);
    return matching[index % Math.max(1, matching.length)];
  }

  private endOne(caller: Caller | undefined): void {
    if (caller?.node === undefined || caller.status !== 'running') {
      return;
    }
    caller.status = 'done';
    caller.node.ours.delete(caller.id);
    caller.node.lastActiveAt = this.now;
    this.feed({ kind: 'end', id: caller.id });
  }

  private crash(node: SimulatedNode | undefined): void {
    if (node === undefined || node.state === 'stopped') {
      return;
    }
    node.state = 'stopped';
    node.epoch += 1;
    // Its requests fail upstream; a wake or stop under way ends with it.
    for (const id of [...node.ours]) {
      this.endOne(this.callers.get(id));
    }
    const name = node.spec.name;
    if (node.waking) {
      node.waking = false;
      this.feed({ kind: 'wake-ended', node: name, ok: false, detail: 'crashed' });
    }
    if (node.stopping) {
      node.stopping = false;
      this.feed({ kind: 'stop-ended', node: name, ok: true });
    }
  }

  /** Moves the clock, firing transitions and the scheduler's own timer in time order. */
  private advance(ms: number): void {
    const target = this.now + ms;
    for (let loops = 0; ; loops += 1) {
      if (loops > 10_000) {
        throw new Violation('the timer never settles');
      }
      const due = this.scheduler.nextDueAt(this.now);
      const next = this.nodes.peek();
      if (due !== undefined && due <= target && (next === undefined || due < next)) {
        this.now = Math.max(this.now, due);
        this.feed({ kind: 'tick' });
        const after = this.scheduler.nextDueAt(this.now);
        if (after !== undefined && after <= this.now) {
          throw new Violation(`a tick at ${this.now} leaves one due at ${after}`);
        }
        continue;
      }
      const transition = this.nodes.next(target);
      if (transition === undefined) {
        this.now = target;
        this.feed({ kind: 'tick' });
        return;
      }
      this.now = Math.max(this.now, transition.at);
      this.happen(transition);
    }
  }

  private happen({ node, epoch, what }: Transition): void {
    const name = node.spec.name;
    if (epoch !== node.epoch) {
      return;
    }
    if (what === 'stopped') {
      node.state = 'stopped';
      node.stopping = false;
      this.feed({ kind: 'stop-ended', node: name, ok: true });
    } else if (what === 'wake-failed') {
      node.waking = false;
      this.feed({ kind: 'wake-ended', node: name, ok: false, detail: 'did not answer' });
    } else if (node.spec.start === 'ok') {
      node.state = 'running';
      node.startedAt = this.now;
      node.waking = false;
      const view = this.nodes.viewOf(node, this.now);
      this.feed({ kind: 'wake-ended', node: name, ok: true, view });
    } else if (node.spec.start === 'crash') {
      node.state = 'stopped';
      node.waking = false;
      this.feed({ kind: 'wake-ended', node: name, ok: false, detail: 'crashed' });
    } else {
      // Loading for ever: the gateway's wake gives up at its timeout and leaves it loading.
      this.nodes.plan(node, this.now + this.spec.wakeTimeoutMs, 'wake-failed');
    }
  }

  /** One event and everything its actions cause, fed after, as the edge would. */
  private feed(event: SchedulerEvent): void {
    const after: SchedulerEvent[] = [];
    for (const action of this.scheduler.step(event, this.now)) {
      this.observe(action);
      this.apply(action, after);
    }
    for (const next of after) {
      this.feed(next);
    }
  }

  private apply(action: Action, after: SchedulerEvent[]): void {
    if (action.kind === 'dispatch' || action.kind === 'reject') {
      const caller = checkAnswer(action, this.callers.get(action.id));
      if (action.kind === 'reject') {
        caller.status = 'done';
      } else {
        checkOrder(caller, this.callers.values());
        this.dispatch(caller, this.nodes.named(action.node), after);
      }
      return;
    }
    if (action.kind === 'start' || action.kind === 'start-refused') {
      if (this.starts.get(action.id) !== 'waiting') {
        throw new Violation(`start ${action.id} answered twice`);
      }
      this.starts.set(action.id, 'done');
      if (action.kind === 'start-refused' || action.already === true) {
        return;
      }
    }
    const node = this.nodes.named(action.node);
    if (action.kind === 'read') {
      // Its record as a read leaves it: every request of anyone's so far shows, and one in its
      // engine now is activity now (spec §3).
      if (node.others > 0) {
        node.lastActiveAt = this.now;
      }
      const reading = {
        askedAt: this.now,
        ...(node.lastActiveAt === undefined ? {} : { lastActiveAt: node.lastActiveAt }),
      };
      after.push({ kind: 'activity', node: node.spec.name, reading });
      return;
    }
    if (action.kind === 'wake' || action.kind === 'start') {
      checkWake(node);
      node.waking = true;
      node.state = 'starting';
      this.nodes.checkGroups();
      checkExclusive(this.nodes.all, this.spec.groups, node);
      this.nodes.plan(node, this.now + node.spec.startMs, 'ready');
      return;
    }
    checkStop(node, this.callers, action.forced === true);
    checkPersistentStop(
      node,
      this.spec.groups,
      action.reason === 'swap' ? action.group : undefined,
    );
    // A forced stop cuts what runs there (docs/design.md D33): those requests fail upstream.
    for (const id of [...node.ours]) {
      const caller = this.callers.get(id);
      node.ours.delete(id);
      if (caller !== undefined) {
        caller.status = 'done';
      }
      after.push({ kind: 'end', id });
    }
    if (node.state === 'stopped') {
      after.push({ kind: 'stop-ended', node: node.spec.name, ok: true });
      return;
    }
    node.stopping = true;
    node.state = 'stopping';
    this.nodes.plan(node, this.now + node.spec.stopMs, 'stopped');
  }

  private dispatch(caller: Caller, node: SimulatedNode, after: SchedulerEvent[]): void {
    if (node.state === 'stopped') {
      // It crashed since the last view: the request fails upstream at once (spec §4.2 rule 4).
      caller.status = 'done';
      after.push({ kind: 'end', id: caller.id });
      return;
    }
    checkTarget(caller, node);
    node.ours.add(caller.id);
    node.lastActiveAt = this.now;
    caller.status = 'running';
    caller.node = node;
  }
}
