/**
 * The scheduler's vocabulary: what the gateway tells it (settings once, then events with `now`)
 * and what it answers (actions). Plain data, no I/O: the gateway maps its node snapshots to
 * NodeView (view-of-snapshot.ts), feeds events and applies the actions (scheduler.ts says how).
 */
import type { FallbackReason, FleetFallback, Preference } from '../file/fleet-file.ts';

/** The gateway's own id for one request (a counter is enough). */
export type RequestId = number;

/** The gateway's own id for one start an operator asked for (a counter is enough). */
export type StartId = number;

/** docs/design.md D25 `queue`: how many requests for a model may wait, and for how long. */
export interface QueueLimits {
  readonly max: number;
  readonly timeoutMs: number;
}

/**
 * docs/design.md D26 `groups.<name>`: members that may run at once, and how long one stays before a
 * swap.
 */
export interface GroupSettings {
  readonly max: number;
  readonly minResidencyMs: number;
  /** docs/design.md D31 `exclusive`, `persistent`; absent: false. */
  readonly exclusive?: boolean;
  readonly persistent?: boolean;
}

/** One node's settings from the fleet file, each already resolved (the node's own wins). */
export interface NodeSettings {
  readonly name: string;
  /** docs/design.md D26 `group`. */
  readonly group?: string;
  /** docs/design.md D26 `idleStop`; absent: off. */
  readonly idleStopMs?: number;
  /** docs/design.md D26 `keepWarm`. */
  readonly keepWarm: boolean;
  /** docs/design.md D25 `scaleOut`: whether this node may be started for load. */
  readonly scaleOut: boolean;
  /** docs/design.md D30: an upstream node, and the names it serves (upstream-choice.ts). */
  readonly upstream?: readonly string[];
}

export interface SchedulerSettings {
  /** In fleet-file order: the order breaks ranking ties (spec §4.2 rule 3) and orders wakes. */
  readonly nodes: readonly NodeSettings[];
  /** docs/design.md D12. */
  readonly prefer: Preference;
  /** docs/design.md D25 `affinity`. */
  readonly affinity: boolean;
  /**
   * docs/design.md D25 `queue` (fleet-wide) and `queue.models` (per model, each key falling back).
   */
  readonly queue: QueueLimits;
  readonly queueByModel: ReadonlyMap<string, Partial<QueueLimits>>;
  readonly groups: ReadonlyMap<string, GroupSettings>;
  /** `--wake-timeout` (spec §4.2 rule 5): the bound on a wait with no ready node. */
  readonly wakeTimeoutMs: number;
  /** docs/design.md D30 `fallbacks`, by model. */
  readonly fallbacks?: ReadonlyMap<string, FleetFallback>;
}

/**
 * What a node is doing, as the gateway last saw it. `starting` and `stopping` are transitions
 * other than ours (a control plane's `pending`); `unreachable`: its daemon did not answer.
 */
export type NodeCondition = 'running' | 'starting' | 'stopping' | 'stopped' | 'unreachable';

/** One node as seen at `observedAt` (ms): a later view replaces it, an earlier one is ignored. */
export interface NodeView {
  readonly name: string;
  readonly observedAt: number;
  readonly state: NodeCondition;
  /**
   * Whether a running engine answered its health check (docs/design.md D13: not ready is loading).
   */
  readonly ready: boolean;
  /** Names a running engine answers to (served name, model id); empty when it serves nothing usable. */
  readonly serves: readonly string[];
  /** docs/design.md D25 `slots`; absent: unknown, and the node is never held back. */
  readonly slots?: number;
  /** docs/design.md D25 `busy`: requests in its engine at the last scrape, from any caller. */
  readonly busy?: number;
  /** spec §3 activity, in ms; absent: never active. */
  readonly lastActiveAt?: number;
  /** When its engine started (ms), where known; residency and idleness count from it. */
  readonly runningSince?: number;
  /**
   * Names a wake would answer to (spec §4.2 rule 5: what its source describes); empty or absent
   * when it may not be woken. May be given for a running node too: it is kept across our stop.
   */
  readonly wakes?: readonly string[];
  /** Its stored config already matches what a wake would start: tried first (spec §4.2 rule 5). */
  readonly warm?: boolean;
  /**
   * Facts only a refusal or a route explanation words (route-decision.ts), never a placement:
   * why a running engine cannot be reached from here (docs/design.md D15: it then serves nothing
   * here), the names its source describes while its wake is off, why its source could not be read,
   * and why it did not answer.
   */
  readonly unusable?: string;
  readonly wakeOff?: readonly string[];
  readonly sourceProblem?: string;
  readonly detail?: string;
  /**
   * docs/design.md D32: its engine's prompt cache is saved before a graceful stop and restored at
   * its next start (`keepCache: on`, and not crashed): its affinity entries outlive the stop.
   */
  readonly keepsCache?: boolean;
  /** docs/design.md D32 `lastCacheRestore.slots`: what the running engine's start restored. */
  readonly cacheRestored?: number;
}

/** A request as the gateway read it: enough to place it, nothing of its body. */
export interface RequestInfo {
  readonly id: RequestId;
  readonly model: string;
  readonly streaming: boolean;
  /** The affinity key of its leading prompt (affinity-key.ts), when it has one. */
  readonly affinity?: string;
  /**
   * docs/design.md D33 fast paths, what is forgotten rather than applied: `unlessPlaced`, all but a
   * placement now (nothing queued or woken); `noNodeRefusal`, a refusal for want of a node (the
   * gateway asks silent nodes again first, freshen.ts). It arrives again once its views are fresh.
   */
  readonly forget?: 'unlessPlaced' | 'noNodeRefusal';
  /** docs/design.md D29 `wake: off`: refused where serving it would start a node. */
  readonly mayWake?: false;
  /** docs/design.md D29 `upstreams: off`: never sent to an upstream node or a fallback. */
  readonly mayUseUpstreams?: false;
  /** docs/design.md D29: whose request it is, for fair shares; absent: the fleet has no callers. */
  readonly caller?: CallerShare;
}

/** A caller as the queue weighs it (docs/design.md D29 `priority`, `concurrency`), plain data. */
export interface CallerShare {
  readonly name: string;
  /** high 4, normal 2, low 1 (fair-lanes.ts). */
  readonly weight: number;
  /** Most of its requests in flight at once through this gateway; absent: no limit. */
  readonly concurrency?: number;
}

/**
 * A fresh reading of a node's activity: its metrics read, which feeds its record the way the
 * sampler does (spec §3), so its `lastActiveAt` covers every request up to `askedAt`, anyone's.
 */
export interface ActivityReading {
  /** When it was asked (ms): everything before this shows in `lastActiveAt`. */
  readonly askedAt: number;
  /** spec §3 activity as the read left it, in ms; absent: never active. */
  readonly lastActiveAt?: number;
}

export type SchedulerEvent =
  /** A request arrived. */
  | { readonly kind: 'arrive'; readonly request: RequestInfo }
  /** A request is over: its reply ended or failed, or its caller hung up (waiting or not). */
  | { readonly kind: 'end'; readonly id: RequestId }
  /**
   * An operator asked to start the node (API, CLI, dashboard, page: docs/design.md D33). `force`:
   * stop the member holding its full group even when it is busy or within its residency.
   */
  | {
      readonly kind: 'start';
      readonly id: StartId;
      readonly node: string;
      readonly force: boolean;
    }
  /** A request in flight now runs on `node` instead (a retry on its fallback: moves.ts). */
  | { readonly kind: 'move'; readonly id: RequestId; readonly node: string }
  /** Fresh views of some or all nodes. */
  | { readonly kind: 'views'; readonly views: readonly NodeView[] }
  /** A wake we asked for ended: ready (with the view that said so), or not. */
  | {
      readonly kind: 'wake-ended';
      readonly node: string;
      readonly ok: true;
      readonly view: NodeView;
    }
  | {
      readonly kind: 'wake-ended';
      readonly node: string;
      readonly ok: false;
      readonly detail: string;
    }
  /** A stop we asked for ended. */
  | { readonly kind: 'stop-ended'; readonly node: string; readonly ok: boolean }
  /** A read we asked for ended: its reading, or none when the node could not be read. */
  | { readonly kind: 'activity'; readonly node: string; readonly reading?: ActivityReading }
  /** Only time passed (the timer set from nextDueAt). */
  | { readonly kind: 'tick' };

export type RejectReason =
  /** docs/design.md D25: 429 with Retry-After. */
  | 'queue_full'
  /**
   * docs/design.md D25: 503 with Retry-After; waited past the queue timeout while nodes were full.
   */
  | 'queue_timeout'
  /** docs/design.md D26: 503; waited past the wake timeout for a group held by busy members. */
  | 'group_busy'
  /**
   * docs/design.md D19: 504; waited past the wake timeout for a node that is starting or loading.
   */
  | 'wake_timeout'
  /** docs/design.md D19: 502; every candidate's wake failed. */
  | 'wake_failed'
  /**
   * docs/design.md D19: nothing serves the model and nothing may be woken for it (404, or 502 for
   * silence).
   */
  | 'no_node'
  /** docs/design.md D29: 403; serving it would wake a node its caller may not wake. */
  | 'wake_not_allowed';

/** Why a group member cannot make room for another. */
export type HoldReason =
  | { readonly why: 'busy'; readonly inFlight: number; readonly queued: number }
  | { readonly why: 'residency'; readonly remainingMs: number }
  | { readonly why: 'starting' }
  | { readonly why: 'stopping' };

export type RejectDetail =
  | ({ readonly group: string; readonly holder: string } & HoldReason)
  | { readonly failures: readonly { readonly node: string; readonly detail: string }[] }
  | { readonly waitingFor: string }
  | { readonly wakeRefused: string };

export type Action =
  /**
   * Send the request to the node; `waitedMs` feeds `Server-Timing: queue;dur=` (docs/design.md
   * D25).
   */
  | {
      readonly kind: 'dispatch';
      readonly id: RequestId;
      readonly model: string;
      readonly node: string;
      readonly waitedMs: number;
      /** docs/design.md D30: sent to the model's fallback, and why (`x-svc-fallback`). */
      readonly fallback?: FallbackReason;
    }
  | {
      readonly kind: 'reject';
      readonly id: RequestId;
      readonly model: string;
      readonly reason: RejectReason;
      /** Whole seconds ≥ 1, where a retry can help. */
      readonly retryAfterSeconds?: number;
      readonly waitedMs: number;
      readonly detail?: RejectDetail;
    }
  /** Start the node for the model; report the end as a `wake-ended` event. */
  | {
      readonly kind: 'wake';
      readonly node: string;
      readonly model: string;
      readonly cause: 'demand' | 'scale-out' | 'keep-warm';
    }
  /**
   * Read the node's activity afresh (idle-stop.ts): its metrics, not its status; report it as an
   * `activity` event.
   */
  | { readonly kind: 'read'; readonly node: string }
  /**
   * Stop the node; report the end as a `stop-ended` event. `group` names a swap's group;
   * `forced`: an operator's forced start stops it busy (its requests are cut, docs/design.md D33).
   */
  | {
      readonly kind: 'stop';
      readonly node: string;
      readonly reason: 'idle' | 'swap';
      readonly group?: string;
      readonly forced?: true;
    }
  /**
   * Start the node an operator asked for (its group has room now); report the end as a
   * `wake-ended` event, as for a wake. `already`: it holds its share already (running, or
   * coming up): start it as asked, but report nothing back (a wake of ours may be under way).
   */
  | {
      readonly kind: 'start';
      readonly id: StartId;
      readonly node: string;
      readonly already?: true;
    }
  /** docs/design.md D33: 409 `group_busy`: its group is full and no member may make room now. */
  | ({
      readonly kind: 'start-refused';
      readonly id: StartId;
      readonly node: string;
      readonly group: string;
      readonly holder: string;
    } & HoldReason);
