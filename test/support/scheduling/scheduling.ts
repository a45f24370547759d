/**
 * The scheduler as unit tests drive it: node views built from a few facts, and a harness with an
 * injected clock that feeds events and keeps every action answered.
 */
import { Scheduler } from '../../../src/core/fleet/scheduling/scheduler.ts';
import {
  type SchedulerOptions,
  schedulerSettings,
} from '../../../src/core/fleet/scheduling/settings.ts';
import type {
  Action,
  NodeView,
  RequestId,
  SchedulerEvent,
} from '../../../src/core/fleet/scheduling/types.ts';

export const MODEL = 'chat';

/** A node running MODEL, ready, seen at time 0, with what `extra` changes. */
export function running(name: string, extra: Partial<NodeView> = {}): NodeView {
  return { name, observedAt: 0, state: 'running', ready: true, serves: [MODEL], ...extra };
}

/** A stopped node a wake would start MODEL on. */
export function stopped(name: string, extra: Partial<NodeView> = {}): NodeView {
  return {
    name,
    observedAt: 0,
    state: 'stopped',
    ready: false,
    serves: [],
    wakes: [MODEL],
    ...extra,
  };
}

/**
 * An upstream node answering (docs/design.md D30): it serves nothing in the views, as the gateway
 * sees one; the names it takes come from its settings' `upstream`.
 */
export const hostedView: NodeView = {
  name: 'hosted',
  observedAt: 0,
  state: 'running',
  ready: true,
  serves: [],
  slots: 4,
};

export class Harness {
  now = 0;
  readonly scheduler: Scheduler;
  readonly log: Action[] = [];

  constructor(options: SchedulerOptions, views: readonly NodeView[] = []) {
    this.scheduler = new Scheduler(schedulerSettings(options));
    if (views.length > 0) {
      this.views(...views);
    }
  }

  /**
   * The node's `lastActiveAt` as a fresh read of it finds it (idle-stop.ts): while set, every
   * `read` is answered at once, as asked now, and what that causes follows in the same answer.
   */
  reads: ((node: string) => number | undefined) | undefined;

  step(event: SchedulerEvent): Action[] {
    const actions = this.scheduler.step(event, this.now);
    this.log.push(...actions);
    const reads = this.reads;
    if (reads === undefined) {
      return actions;
    }
    return actions.flatMap((action) => {
      if (action.kind !== 'read') {
        return [action];
      }
      const lastActiveAt = reads(action.node);
      const reading = {
        askedAt: this.now,
        ...(lastActiveAt === undefined ? {} : { lastActiveAt }),
      };
      return [action, ...this.step({ kind: 'activity', node: action.node, reading })];
    });
  }

  /** Views as seen now (unless they say otherwise). */
  views(...views: NodeView[]): Action[] {
    return this.step({
      kind: 'views',
      views: views.map((view) => ({ ...view, observedAt: Math.max(view.observedAt, this.now) })),
    });
  }

  arrive(
    id: RequestId,
    extra: { model?: string; streaming?: boolean; affinity?: string } = {},
  ): Action[] {
    const { model = MODEL, streaming = false, affinity } = extra;
    return this.step({
      kind: 'arrive',
      request: { id, model, streaming, ...(affinity === undefined ? {} : { affinity }) },
    });
  }

  end(id: RequestId): Action[] {
    return this.step({ kind: 'end', id });
  }

  /** Moves the clock on and ticks. */
  advance(ms: number): Action[] {
    this.now += ms;
    return this.step({ kind: 'tick' });
  }

  wakeReady(view: NodeView): Action[] {
    return this.step({
      kind: 'wake-ended',
      node: view.name,
      ok: true,
      view: { ...view, observedAt: this.now },
    });
  }

  /** An operator's start (docs/design.md D33). */
  start(id: number, node: string, force = false): Action[] {
    return this.step({ kind: 'start', id, node, force });
  }

  wakeFailed(node: string, detail = 'it crashed'): Action[] {
    return this.step({ kind: 'wake-ended', node, ok: false, detail });
  }

  stopEnded(node: string, ok = true): Action[] {
    return this.step({ kind: 'stop-ended', node, ok });
  }
}

/** `id→node` for each dispatch, in order. */
export function dispatches(actions: readonly Action[]): string[] {
  return actions.flatMap((action) =>
    action.kind === 'dispatch' ? [`${action.id}→${action.node}`] : [],
  );
}

/** Every action, in one short line each, for a whole-sequence comparison. */
export function brief(actions: readonly Action[]): string[] {
  return actions.map((action) => {
    switch (action.kind) {
      case 'dispatch':
        return `dispatch ${action.id}→${action.node}`;
      case 'reject':
        return `reject ${action.id} ${action.reason}${action.retryAfterSeconds === undefined ? '' : ` ${action.retryAfterSeconds}s`}`;
      case 'wake':
        return `wake ${action.node} ${action.model} (${action.cause})`;
      case 'stop':
        return `stop ${action.node} (${action.reason}${action.forced === true ? ', forced' : ''})`;
      case 'read':
        return `read ${action.node}`;
      case 'start':
        return `start ${action.id} ${action.node}${action.already === true ? ' (already)' : ''}`;
      case 'start-refused':
        return `start-refused ${action.id} ${action.node}: ${action.holder} ${action.why}`;
    }
  });
}

/**
 * The gateway's one in-flight count, the scheduler's ledger, driven by hand: `begin` dispatches a
 * request for `model` to `node` through a real scheduler (the node made the only one serving it),
 * and the function it returns ends it.
 */
export class LedgerInFlight {
  readonly scheduler: Scheduler;
  private id = 0;

  constructor(
    private readonly names: readonly string[],
    private readonly clock: { now: number },
  ) {
    this.scheduler = new Scheduler(schedulerSettings({ nodes: names.map((name) => ({ name })) }));
  }

  begin(node: string, model: string): () => void {
    this.id += 1;
    const id = this.id;
    const views = this.names.map((name) => ({
      name,
      observedAt: id,
      state: name === node ? ('running' as const) : ('stopped' as const),
      ready: name === node,
      serves: name === node ? [model] : [],
    }));
    this.scheduler.step({ kind: 'views', views }, this.clock.now);
    const [action] = this.scheduler.step(
      { kind: 'arrive', request: { id, model, streaming: false } },
      this.clock.now,
    );
    if (action?.kind !== 'dispatch' || action.node !== node) {
      throw new Error(`expected a dispatch to ${node}, got ${JSON.stringify(action)}`);
    }
    return () => this.scheduler.step({ kind: 'end', id }, this.clock.now);
  }
}
