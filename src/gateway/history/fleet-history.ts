/**
 * What the fleet page's charts draw over the last 10 minutes (`GET /v1/fleet/history`), kept by
 * the gateway itself, since every request passes through it: per node, the completion tokens per
 * second its engine produced for this gateway's requests (from the engine's own `usage`, counted
 * as each reply ends, usage/caller-usage.ts) and this gateway's requests in flight on it; per
 * model, how many wait in the queue and the longest wait of the requests that left it in the
 * interval; per group, its members, the one holding it and its last swaps. A node's GPU memory
 * is not here: the node's own 10-minute history (`/v1/fleet/stats`, spec §2.4) has it.
 *
 * One sample every `intervalMs`, the first at once; nothing is asked of a node to take one.
 * Models enter only from the scheduler (a request it placed or queues), so a name nothing
 * serves adds no series.
 */
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import type { Action } from '../../core/fleet/scheduling/types.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshot.ts';
import type { SchedulingReadout } from '../metrics/scheduling-readout.ts';

export const HISTORY_WINDOW_MS = 10 * 60 * 1000;
export const HISTORY_INTERVAL_MS = 5_000;
/** Swaps kept per group: the page shows the last few. */
export const SWAPS_KEPT = 10;

export interface NodePoint {
  /** Unix seconds. */
  readonly t: number;
  readonly inFlight: number;
  readonly tokensPerSecond: number;
}

export interface ModelPoint {
  readonly t: number;
  readonly queued: number;
  /** The longest wait (ms) of the requests that left the queue since the previous sample. */
  readonly waitMs: number;
}

export interface Swap {
  /** RFC 3339. */
  readonly at: string;
  /** The member stopped to make room. */
  readonly stopped: string;
}

export interface HistoryEdges {
  readonly nodes: readonly Pick<FleetNode, 'name' | 'group'>[];
  readonly readout: Pick<SchedulingReadout, 'inFlight' | 'queued'>;
  /** Completion tokens this gateway counted for the node since it started. */
  readonly tokensOf: (node: string) => number;
  /** The nodes' latest snapshots, never waited for: who holds a group now. */
  readonly snapshots: () => readonly NodeSnapshot[];
  readonly now: () => number;
  /** Runs `run` every `ms` until the returned function is called. */
  readonly every: (ms: number, run: () => void) => () => void;
  readonly intervalMs?: number;
}

/** States in which a group member holds its group's place. */
const HOLDING = new Set(['running', 'starting', 'loading']);

export class FleetHistory {
  private readonly byNode = new Map<string, NodePoint[]>();
  private readonly byModel = new Map<string, ModelPoint[]>();
  private readonly waits = new Map<string, number>();
  private readonly swaps = new Map<string, Swap[]>();
  private readonly lastTokens = new Map<string, number>();
  private lastAt: number;
  private readonly stop: () => void;
  readonly intervalMs: number;

  constructor(private readonly edges: HistoryEdges) {
    this.intervalMs = edges.intervalMs ?? HISTORY_INTERVAL_MS;
    this.lastAt = edges.now();
    for (const node of edges.nodes) {
      this.lastTokens.set(node.name, edges.tokensOf(node.name));
    }
    this.sample();
    this.stop = edges.every(this.intervalMs, () => this.sample());
  }

  /** One scheduler action as the loop applies it: a wait that ended, a swap. */
  observe(action: Action): void {
    if (
      action.kind === 'dispatch' ||
      (action.kind === 'reject' && this.byModel.has(action.model))
    ) {
      this.byModel.set(action.model, this.byModel.get(action.model) ?? []);
      this.waits.set(action.model, Math.max(this.waits.get(action.model) ?? 0, action.waitedMs));
    }
    if (action.kind === 'stop' && action.reason !== 'idle' && action.group !== undefined) {
      const kept = this.swaps.get(action.group) ?? [];
      kept.unshift({ at: new Date(this.edges.now()).toISOString(), stopped: action.node });
      this.swaps.set(action.group, kept.slice(0, SWAPS_KEPT));
    }
  }

  /** Takes one sample now and drops what fell out of the window. */
  sample(): void {
    const now = this.edges.now();
    const seconds = (now - this.lastAt) / 1000;
    this.lastAt = now;
    const t = Math.floor(now / 1000);
    const oldest = t - HISTORY_WINDOW_MS / 1000;
    const keep = <P extends { t: number }>(points: P[], point: P): P[] => {
      points.push(point);
      while (points.length > 0 && (points[0]?.t ?? t) < oldest) {
        points.shift();
      }
      return points;
    };
    for (const { name } of this.edges.nodes) {
      const tokens = this.edges.tokensOf(name);
      const produced = Math.max(0, tokens - (this.lastTokens.get(name) ?? tokens));
      this.lastTokens.set(name, tokens);
      const rate = seconds > 0 ? Math.round((produced / seconds) * 10) / 10 : 0;
      const point = { t, inFlight: this.edges.readout.inFlight(name), tokensPerSecond: rate };
      this.byNode.set(name, keep(this.byNode.get(name) ?? [], point));
    }
    const queued = this.edges.readout.queued();
    for (const model of queued.keys()) {
      this.byModel.set(model, this.byModel.get(model) ?? []);
    }
    for (const [model, points] of this.byModel) {
      const waitMs = Math.round(this.waits.get(model) ?? 0);
      keep(points, { t, queued: queued.get(model) ?? 0, waitMs });
    }
    this.waits.clear();
  }

  /** `GET /v1/fleet/history`, with only the models `allows` lets the caller see. */
  reply(allows: (model: string) => boolean): string {
    const snapshots = this.edges.snapshots();
    const groups = new Map<string, string[]>();
    for (const node of this.edges.nodes) {
      if (node.group !== undefined) {
        groups.set(node.group, [...(groups.get(node.group) ?? []), node.name]);
      }
    }
    const holding = (name: string): boolean =>
      snapshots.some((s) => s.node.name === name && s.ok && HOLDING.has(s.status.state));
    return JSON.stringify({
      intervalSeconds: this.intervalMs / 1000,
      windowSeconds: HISTORY_WINDOW_MS / 1000,
      nodes: [...this.byNode].map(([name, samples]) => ({ name, samples })),
      models: [...this.byModel]
        .filter(([model]) => allows(model))
        .map(([model, samples]) => ({ model, samples })),
      groups: [...groups].map(([name, members]) => ({
        name,
        members,
        holder: members.find(holding) ?? null,
        swaps: this.swaps.get(name) ?? [],
      })),
    });
  }

  close(): void {
    this.stop();
  }
}
