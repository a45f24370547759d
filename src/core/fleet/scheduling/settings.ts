/**
 * The scheduler's defaults and the settings it is built from, resolved once: what the fleet file
 * leaves out is filled here, so the rules never ask "is this set?".
 */
import type { GroupSettings, NodeSettings, QueueLimits, SchedulerSettings } from './types.ts';

/**
 * docs/design.md D25 `queue` defaults. 64 waiting requests per model bounds what the gateway holds
 * (each waiting request keeps its body, and an agent's can be a megabyte) while absorbing a burst
 * several times a node's slots. Two minutes is longer than most completions take, so a request
 * behind a few others still gets served, yet short enough that a stuck fleet answers the caller
 * (who retries a 503) instead of holding its connection for the client's own ten-minute timeout.
 */
export const QUEUE_DEFAULTS: QueueLimits = { max: 64, timeoutMs: 120_000 };

/** spec §4.2 gateway flags: `--wake-timeout` defaults to 5m. */
export const WAKE_TIMEOUT_DEFAULT_MS = 300_000;

/**
 * docs/design.md D26 `groups` defaults. `max: 1`: a group is most often one GPU that holds one
 * model at a time. `minResidency: 30s`: a member woken for a request keeps its place long enough to
 * answer it and the requests that follow (loading a model takes seconds to tens of seconds, so
 * swapping faster spends the GPU on loading, not answering), yet a request for another member still
 * gets its turn well inside the default five-minute wake timeout.
 */
export const GROUP_DEFAULTS: GroupSettings = { max: 1, minResidencyMs: 30_000 };

/**
 * A node's own settings; `idleStopMs: 'off'` keeps a fleet-wide idle stop off it (docs/design.md
 * D26).
 */
export type NodeOptions = Pick<NodeSettings, 'name'> &
  Partial<Omit<NodeSettings, 'name' | 'idleStopMs'>> & { readonly idleStopMs?: number | 'off' };

/** What a fleet file says about scheduling; everything left out takes its default. */
export interface SchedulerOptions {
  readonly nodes: readonly NodeOptions[];
  readonly prefer?: SchedulerSettings['prefer'];
  readonly affinity?: boolean;
  readonly queue?: Partial<QueueLimits>;
  readonly queueByModel?: SchedulerSettings['queueByModel'];
  readonly groups?: SchedulerSettings['groups'];
  readonly wakeTimeoutMs?: number;
  /** The fleet-wide `scaleOut`; a node's own wins (docs/design.md D25). */
  readonly scaleOut?: boolean;
  /** The fleet-wide `idleStop`; a node's own wins (docs/design.md D26). */
  readonly idleStopMs?: number | 'off';
  readonly fallbacks?: SchedulerSettings['fallbacks'];
}

export function schedulerSettings(options: SchedulerOptions): SchedulerSettings {
  const nodes = options.nodes.map((node): NodeSettings => {
    const idleStopMs = node.idleStopMs ?? options.idleStopMs;
    return {
      name: node.name,
      ...(node.group === undefined ? {} : { group: node.group }),
      ...(idleStopMs === undefined || idleStopMs === 'off' ? {} : { idleStopMs }),
      keepWarm: node.keepWarm ?? false,
      scaleOut: node.scaleOut ?? options.scaleOut ?? false,
      ...(node.upstream === undefined ? {} : { upstream: node.upstream }),
    };
  });
  return {
    nodes,
    prefer: options.prefer ?? 'idle',
    // docs/design.md D25: affinity is on unless the file turns it off; scale-out is opt-in.
    affinity: options.affinity ?? true,
    queue: { ...QUEUE_DEFAULTS, ...options.queue },
    queueByModel: options.queueByModel ?? new Map(),
    groups: options.groups ?? new Map(),
    wakeTimeoutMs: options.wakeTimeoutMs ?? WAKE_TIMEOUT_DEFAULT_MS,
    ...(options.fallbacks === undefined ? {} : { fallbacks: options.fallbacks }),
  };
}

/** A model's own limits, each key falling back to the fleet-wide one (docs/design.md D25). */
export function queueLimitsFor(settings: SchedulerSettings, model: string): QueueLimits {
  const own = settings.queueByModel.get(model);
  return own === undefined ? settings.queue : { ...settings.queue, ...own };
}
