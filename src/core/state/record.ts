/**
 * The one record status and metrics answer from (spec §3: "Status and metrics answer from one
 * record and keep answering after a stop"). The supervisor writes the engine's state into it;
 * readers take snapshots. Pure: every method that needs the time takes `now`.
 */
import type {
  CacheRestore,
  EngineEndpoint,
  EngineState,
  LastExit,
  Stats,
  StatusResponse,
  TokenStats,
} from '../contract/schemas.ts';
import { isActivity } from './activity.ts';
import { addSample, type HistorySample, percent } from './history.ts';
import type { LifetimeCounts } from './lifetime-counts.ts';

export type { LifetimeCounts } from './lifetime-counts.ts';

export interface EngineRun {
  readonly runner: string;
  readonly model?: string;
  readonly servedName?: string;
  readonly startedAt: Date;
  readonly endpoint: EngineEndpoint;
  readonly logPath?: string;
  /** The slots its command line states, if it does (docs/design.md D25). */
  readonly slots?: number;
  /** docs/design.md D32: what the start restored of the prompt cache kept by `keepCache`. */
  readonly cacheRestore?: CacheRestore;
}

/** Host readings of the last sampler tick. */
export interface HostReading {
  readonly cpu?: NonNullable<Stats['cpu']>;
  readonly memory?: NonNullable<Stats['memory']>;
  readonly gpus?: NonNullable<Stats['gpus']>;
  /** Collection failures of that tick (`gpu: …`); an absent source is not one. */
  readonly errors: readonly string[];
}

export interface RecordSnapshot {
  readonly state: EngineState;
  readonly lifetime: LifetimeCounts;
  readonly run?: EngineRun;
  readonly lastActiveAt?: Date;
  readonly ready?: 'ready' | 'not-ready';
  /** The engine's counters at the last successful read. */
  readonly tokens?: TokenStats;
  /** Why the last counter read failed, when it did. */
  readonly tokensError?: string;
  /** docs/design.md D25: the slots the engine reported once ready; over the stated ones. */
  readonly engineSlots?: number;
  /** docs/design.md D25: requests in its slots at the last scrape; unknown after a failed one. */
  readonly busy?: number;
  readonly host?: HostReading;
  /** When the last host reading was taken (the view shows an old one with its age). */
  readonly sampledAt?: Date;
  /** Kept across a stop, cleared when the next engine starts (spec §2.4). */
  readonly history: readonly HistorySample[];
  /** How a crashed engine ended (docs/design.md D23); cleared when the next engine starts. */
  readonly lastExit?: LastExit;
}

export class StateRecord {
  private current: RecordSnapshot = {
    state: 'idle',
    history: [],
    lifetime: { starts: 0, crashes: 0 },
  };

  snapshot(): RecordSnapshot {
    return this.current;
  }

  /** spec §3: a start is activity, so lastActiveAt moves forward to the start time. */
  started(run: EngineRun): void {
    const { lifetime } = this.current;
    this.current = {
      state: 'running',
      run,
      lastActiveAt: run.startedAt,
      history: [],
      lifetime: { ...lifetime, starts: lifetime.starts + 1 },
    };
  }

  /** docs/design.md D32: engine slots saved before a stop, or restored after a start. */
  countSlots(key: 'slotSaves' | 'slotRestores', slots: number): void {
    const { lifetime } = this.current;
    const counts = { ...lifetime, [key]: (lifetime[key] ?? 0) + slots };
    this.current = { ...this.current, lifetime: counts };
  }

  /**
   * Stopped on request or crashed; the last run, lastActiveAt and history stay; live readings go.
   * A crash carries its `lastExit` record (docs/design.md D7: the exit code or signal is kept for
   * status).
   */
  ended(state: 'stopped' | 'crashed', lastExit?: LastExit, exitCode?: number): void {
    const {
      ready: _ready,
      tokens: _tokens,
      tokensError: _error,
      engineSlots: _slots,
      busy: _busy,
      host: _host,
      lastExit: _previous,
      lifetime: { lastExitCode: _code, ...counts },
      ...rest
    } = this.current;
    const code = exitCode ?? lastExit?.exitCode;
    this.current = {
      ...rest,
      state,
      ...(lastExit === undefined ? {} : { lastExit }),
      lifetime: {
        ...counts,
        crashes: counts.crashes + (state === 'crashed' ? 1 : 0),
        ...(code === undefined ? {} : { lastExitCode: code }),
      },
    };
  }

  /**
   * A counter reading, from the sampler or from a metrics request alike (spec §3): activity when
   * requests are in flight or the counter moved since the previous reading. `busy` is that
   * scrape's docs/design.md D25 reading; a scrape without one leaves it unknown.
   */
  observeTokens(
    tokens: TokenStats | undefined,
    error: string | undefined,
    at: Date,
    busy?: number,
  ): void {
    if (this.current.state !== 'running') {
      return;
    }
    const { tokensError: _previous, busy: _busy, ...kept } = this.current;
    const rest = busy === undefined ? kept : { ...kept, busy };
    if (tokens === undefined) {
      this.current = error === undefined ? rest : { ...rest, tokensError: error };
      return;
    }
    const active = isActivity(tokens, this.current.tokens?.counter);
    this.current = { ...rest, tokens };
    if (active) {
      this.active(at);
    }
  }

  /** One sampler tick's host reading, appended to history as a one-letter sample. */
  observeHost(reading: HostReading, at: Date): void {
    if (this.current.state !== 'running') {
      return;
    }
    const sample: HistorySample = {
      t: Math.floor(at.getTime() / 1000),
      ...(reading.cpu === undefined ? {} : { c: reading.cpu.utilization }),
      ...(reading.memory === undefined || reading.memory.total <= 0
        ? {}
        : { m: percent(reading.memory.used, reading.memory.total) }),
      ...(reading.gpus === undefined || reading.gpus.length === 0
        ? {}
        : {
            g: reading.gpus.map((gpu) => ({
              i: gpu.index,
              u: gpu.utilization ?? 0,
              ...(gpu.memoryTotal === undefined ||
              gpu.memoryTotal <= 0 ||
              gpu.memoryUsed === undefined
                ? {}
                : { m: percent(gpu.memoryUsed, gpu.memoryTotal) }),
            })),
          }),
    };
    const hasFigures = sample.c !== undefined || sample.m !== undefined || sample.g !== undefined;
    const current = {
      ...(reading.cpu === undefined ? {} : { cpu: reading.cpu }),
      ...(reading.memory === undefined ? {} : { memory: reading.memory }),
      ...(reading.gpus === undefined ? {} : { gpus: reading.gpus }),
    };
    this.current = {
      ...this.current,
      host: reading,
      sampledAt: at,
      history: hasFigures ? addSample(this.current.history, sample, current) : this.current.history,
    };
  }

  /** docs/design.md D25: the slots the running engine reported (/props), once per start. */
  setEngineSlots(slots: number): void {
    if (this.current.state === 'running') {
      this.current = { ...this.current, engineSlots: slots };
    }
  }

  setReady(ready: 'ready' | 'not-ready' | undefined): void {
    if (this.current.state !== 'running') {
      return;
    }
    const { ready: _previous, ...rest } = this.current;
    this.current = ready === undefined ? rest : { ...rest, ready };
  }

  /** Activity seen by the sampler (spec §3 activity rules). */
  active(at: Date): void {
    if (this.current.lastActiveAt === undefined || at > this.current.lastActiveAt) {
      this.current = { ...this.current, lastActiveAt: at };
    }
  }
}

function activity(
  snapshot: RecordSnapshot,
  now: Date,
): { lastActiveAt?: string; idleSeconds?: number } {
  if (snapshot.lastActiveAt === undefined) {
    return {};
  }
  const idle = Math.max(0, Math.floor((now.getTime() - snapshot.lastActiveAt.getTime()) / 1000));
  // spec §2.4: idleSeconds is absent at zero.
  return {
    lastActiveAt: snapshot.lastActiveAt.toISOString(),
    ...(idle > 0 ? { idleSeconds: idle } : {}),
  };
}

/** docs/design.md D25: slots (the engine's count, else the stated one) and busy, while running. */
function capacity(snapshot: RecordSnapshot): { slots?: number; busy?: number } {
  if (snapshot.state !== 'running') {
    return {};
  }
  const slots = snapshot.engineSlots ?? snapshot.run?.slots;
  return {
    ...(slots === undefined ? {} : { slots }),
    ...(snapshot.busy === undefined ? {} : { busy: snapshot.busy }),
  };
}

function uptime(snapshot: RecordSnapshot, now: Date): number {
  if (snapshot.state !== 'running' || snapshot.run === undefined) {
    return 0;
  }
  return Math.max(0, Math.floor((now.getTime() - snapshot.run.startedAt.getTime()) / 1000));
}

/** spec §2.1 StatusResponse. */
export function statusOf(snapshot: RecordSnapshot, now: Date, version: string): StatusResponse {
  const run = snapshot.run;
  const running = snapshot.state === 'running';
  return {
    state: snapshot.state,
    ...(run === undefined ? {} : { runner: run.runner }),
    ...(run?.model === undefined ? {} : { model: run.model }),
    ...(run?.servedName === undefined ? {} : { servedName: run.servedName }),
    ...(run === undefined ? {} : { uptimeSeconds: uptime(snapshot, now) }),
    ...(run?.logPath === undefined ? {} : { logPath: run.logPath }),
    ...activity(snapshot, now),
    ...(running && run !== undefined ? { engine: run.endpoint } : {}),
    ...(running && snapshot.ready !== undefined ? { ready: snapshot.ready } : {}),
    ...capacity(snapshot),
    version,
    ...(snapshot.lastExit === undefined ? {} : { lastExit: snapshot.lastExit }),
    ...(running && run?.cacheRestore ? { lastCacheRestore: run.cacheRestore } : {}),
  };
}

/**
 * spec §2.4 Stats. Live readings (tokens, host, errors) only while running; a stopped engine keeps
 * lastActiveAt and history (spec §4.1 rule 6). retainUntil is for cloud nodes and never set here.
 */
export function statsOf(snapshot: RecordSnapshot, now: Date): Stats {
  const run = snapshot.run;
  const running = snapshot.state === 'running';
  const host = running ? snapshot.host : undefined;
  const errors = running
    ? [
        ...(snapshot.tokensError === undefined ? [] : [snapshot.tokensError]),
        ...(host?.errors ?? []),
      ]
    : [];
  return {
    state: snapshot.state,
    ...(run === undefined ? {} : { runner: run.runner }),
    ...(run?.model === undefined ? {} : { modelId: run.model }),
    ...(run?.servedName === undefined ? {} : { servedName: run.servedName }),
    ...(run === undefined ? {} : { uptimeSeconds: uptime(snapshot, now) }),
    ...(running && snapshot.tokens !== undefined ? { tokens: snapshot.tokens } : {}),
    ...(host?.gpus === undefined ? {} : { gpus: host.gpus }),
    ...(host?.cpu === undefined ? {} : { cpu: host.cpu }),
    ...(host?.memory === undefined ? {} : { memory: host.memory }),
    ...(snapshot.history.length === 0 ? {} : { history: [...snapshot.history] }),
    ...(errors.length === 0 ? {} : { errors }),
    ...activity(snapshot, now),
    ...(running && snapshot.ready !== undefined ? { ready: snapshot.ready } : {}),
    ...capacity(snapshot),
  };
}
